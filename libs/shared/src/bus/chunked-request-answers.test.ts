/**
 * A chunked request (an attachment, a package, an import: chunking.ts) is answered however its
 * transfer ends. Before, a replica that did not get the whole body (chunks lost, a broken chunk, its
 * own close) answered nothing, and a body sent to an inbox that was gone vanished without a word:
 * the caller waited to the end of its budget (120 s for an attachment) and then reported "outcome
 * unknown" for a command that surely never ran. Here one side of each exchange is a plain NATS
 * client, so a test decides exactly which chunks travel; the server and the other side are real.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createInbox, headers, type Msg, type NatsConnection } from "@nats-io/nats-core";
import { natsForSuite } from "../../../../tests/test-support/nats-for-suite.ts";
import { type Command, type CommandResult, type CommandType, commandSubject, type Reply } from "../contracts/index.ts";
import type { CommandHandler } from "../engine/ports/index.ts";
import { CHUNK_HEADER, REQUEST_CHUNKS_HEADER, UPLOAD_HEADER } from "./chunking.ts";
import { serveCommandsOverNats } from "./command-responder.ts";
import { createNatsStoreClient } from "./nats-store-client.ts";
import { BUDGET_HEADER, decodeReply, encodeJson } from "./wire.ts";

const quiet = () => {};

/** Counts the commands it runs: a body that did not arrive whole must run none. */
function countingHandler(): CommandHandler & { ran: number } {
  const handler = {
    ran: 0,
    async execute<T extends CommandType>(_command: Command<T>): Promise<Reply<CommandResult<T>>> {
      handler.ran++;
      return { ok: true, value: null } as Reply<CommandResult<T>>;
    },
  };
  return handler;
}

/** Messages arriving on a fresh inbox of `connection`, awaited one by one (undefined after `ms`). */
function inboxOf(connection: NatsConnection) {
  const subject = createInbox();
  const queued: Msg[] = [];
  let waiting: ((msg: Msg | undefined) => void) | undefined;
  connection.subscribe(subject, {
    callback: (_error, msg) => {
      if (waiting) {
        const wake = waiting;
        waiting = undefined;
        wake(msg);
      } else queued.push(msg);
    },
  });
  return {
    subject,
    next(ms: number): Promise<Msg | undefined> {
      const first = queued.shift();
      if (first) return Promise.resolve(first);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiting = undefined;
          resolve(undefined);
        }, ms);
        waiting = (msg) => {
          clearTimeout(timer);
          resolve(msg);
        };
      });
    },
  };
}

describe("chunked requests are always answered", () => {
  const { connection } = natsForSuite();

  /** Step 1 of a chunked request, as a gateway sends it; answers the inbox the replica names. */
  async function begin(gateway: NatsConnection, replies: ReturnType<typeof inboxOf>, chunks: number) {
    const beginHeaders = headers();
    beginHeaders.set(BUDGET_HEADER, "60000");
    beginHeaders.set(REQUEST_CHUNKS_HEADER, String(chunks));
    gateway.publish(commandSubject("PutFileByPath"), new Uint8Array(), {
      reply: replies.subject,
      headers: beginHeaders,
    });
    const named = await replies.next(5_000);
    const inbox = named?.headers?.get(UPLOAD_HEADER);
    assert.ok(inbox, "the replica names the inbox for the body");
    return inbox;
  }

  function chunk(gateway: NatsConnection, inbox: string, position: string, data: Uint8Array) {
    const chunkHeaders = headers();
    chunkHeaders.set(CHUNK_HEADER, position);
    gateway.publish(inbox, data, { headers: chunkHeaders });
  }

  function assertNotRun(msg: Msg | undefined, handler: { ran: number }, what: string) {
    assert.ok(msg, `${what}: the caller is answered, not left to its deadline`);
    const reply = decodeReply(msg.data) as Reply<unknown>;
    assert.equal(reply.ok, false);
    if (!reply.ok) assert.equal(reply.error.code, "unavailable", reply.error.message);
    assert.equal(handler.ran, 0, "a command without its whole body is not run");
  }

  it("answers `unavailable` when the rest of the body stops coming", async () => {
    const handler = countingHandler();
    const responder = await serveCommandsOverNats({
      connection: await connection("model-store"),
      handler,
      onError: quiet,
      uploadIdleMs: 300,
    });
    const gateway = await connection("gateway");
    const replies = inboxOf(gateway);
    try {
      const inbox = await begin(gateway, replies, 3);
      // One chunk of three arrives; the other two were lost on the way (a reconnect, a cut link).
      chunk(gateway, inbox, "0/3", new Uint8Array(16));
      const started = Date.now();
      assertNotRun(await replies.next(5_000), handler, "lost chunks");
      assert.ok(Date.now() - started < 3_000, "answered once no chunk came for uploadIdleMs, not at the deadline");
    } finally {
      await responder.close();
    }
  });

  it("answers `unavailable` at once for a broken chunk stream", async () => {
    const handler = countingHandler();
    const responder = await serveCommandsOverNats({
      connection: await connection("model-store"),
      handler,
      onError: quiet,
    });
    const gateway = await connection("gateway");
    const replies = inboxOf(gateway);
    try {
      const inbox = await begin(gateway, replies, 3);
      chunk(gateway, inbox, "1/3", new Uint8Array(16)); // chunk 0 missing
      assertNotRun(await replies.next(2_000), handler, "a chunk out of order");
    } finally {
      await responder.close();
    }
  });

  it("answers the callers whose bodies are on their way when the replica closes", async () => {
    const handler = countingHandler();
    const responder = await serveCommandsOverNats({
      connection: await connection("model-store"),
      handler,
      onError: quiet,
    });
    const gateway = await connection("gateway");
    const replies = inboxOf(gateway);
    const inbox = await begin(gateway, replies, 2);
    chunk(gateway, inbox, "0/2", new Uint8Array(16));
    await gateway.flush();
    await responder.close();
    assertNotRun(await replies.next(2_000), handler, "a replica closing during the transfer");
  });

  it("tells the caller at once when the inbox for its body is gone", async () => {
    // A replica that names an inbox and then goes away before the body arrives (stopped, died, or
    // gave up waiting): played by a plain client that names an inbox nobody holds.
    const replica = await connection("model-store");
    const serving = replica.subscribe(commandSubject("PutFileByPath"), {
      callback: (_error, msg) => {
        const named = headers();
        named.set(UPLOAD_HEADER, createInbox());
        msg.respond(new Uint8Array(), { headers: named });
      },
    });
    await replica.flush();
    const client = createNatsStoreClient({ connection: await connection("gateway"), routeToReplicas: false });
    try {
      const started = Date.now();
      const reply = await client.execute(
        {
          type: "PutFileByPath",
          params: {
            submodelId: "urn:sm",
            idShortPath: "Doc",
            // Larger than a chunk: it travels through the handshake.
            file: { fileName: "big.bin", contentBase64: Buffer.alloc(1_500_000).toString("base64") },
          },
        },
        { deadline: Date.now() + 10_000 },
      );
      assert.equal(reply.ok, false);
      if (!reply.ok) assert.equal(reply.error.code, "unavailable", reply.error.message);
      assert.ok(Date.now() - started < 3_000, "told by the server's no-responders, not by the 10 s deadline");
    } finally {
      await client.close();
      serving.unsubscribe();
      await replica.flush();
    }
  });

  it("still takes a whole body in many chunks", async () => {
    const handler = countingHandler();
    const responder = await serveCommandsOverNats({
      connection: await connection("model-store"),
      handler,
      onError: quiet,
      uploadIdleMs: 300,
    });
    const client = createNatsStoreClient({ connection: await connection("gateway"), routeToReplicas: false });
    try {
      const content = Buffer.alloc(3_000_000, 7).toString("base64");
      const reply = await client.execute(
        {
          type: "PutFileByPath",
          params: { submodelId: "urn:sm", idShortPath: "Doc", file: { fileName: "big.bin", contentBase64: content } },
        },
        { deadline: Date.now() + 10_000 },
      );
      assert.deepEqual(reply, { ok: true, value: null });
      assert.equal(handler.ran, 1);
      assert.ok(encodeJson(content).length > 4 * 512 * 1024, "it took several chunks");
    } finally {
      await client.close();
      await responder.close();
    }
  });
});
