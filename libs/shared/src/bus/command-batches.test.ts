import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { createInbox, type Msg, type NatsConnection } from "@nats-io/nats-core";
import { type RunningServer, startNats } from "../../../../tests/test-support/servers.ts";
import {
  BATCH_SUBJECT_PREFIX,
  batchSubject,
  type Command,
  type CommandResult,
  type CommandType,
  type Reply,
} from "../contracts/index.ts";
import type { CommandHandler } from "../engine/ports/index.ts";
import {
  BATCH_REPLY_MARK,
  decodeCommandBatch,
  decodeReplyBatch,
  encodeCommandBatch,
  encodeReplyBatch,
} from "./batch-wire.ts";
import { serveCommandsOverNats } from "./command-responder.ts";
import { connectNats } from "./connect-nats.ts";
import { createNatsStoreClient } from "./nats-store-client.ts";
import { decodeReply, encodeJson, encodeReply } from "./wire.ts";

const text = (s: string) => new TextEncoder().encode(s);
const patch = (body: string, submodelId = "urn:example:sm:batch"): Command<"PatchSubmodelElementValueByPath"> => ({
  type: "PatchSubmodelElementValueByPath",
  params: { submodelId, idShortPath: "P", body },
  correlationId: `c-${body}`,
});

describe("command batch wire format (docs/adr/0042)", () => {
  it("a command batch comes back as it was sent: budgets, raw-value modes, commands", () => {
    const commands = [patch("1"), patch('"ä\\n"'), patch("3")];
    const data = encodeCommandBatch([
      { budgetMs: 5000, rawValue: undefined, command: encodeJson(commands[0]) },
      { budgetMs: 17, rawValue: true, command: encodeJson(commands[1]) },
      { budgetMs: 1, rawValue: "items", command: encodeJson(commands[2]) },
    ]);
    assert.deepEqual(decodeCommandBatch(data), [
      { budgetMs: 5000, rawValue: undefined, command: commands[0] },
      { budgetMs: 17, rawValue: true, command: commands[1] },
      { budgetMs: 1, rawValue: "items", command: commands[2] },
    ]);
  });

  it("refuses to encode an item without a positive whole budget", () => {
    for (const budgetMs of [0, -1, 1.5, Number.NaN])
      assert.throws(
        () => encodeCommandBatch([{ budgetMs, rawValue: undefined, command: encodeJson(patch("1")) }]),
        /positive budget/,
      );
  });

  it("a malformed command batch is an error that says what is wrong", () => {
    const cases: [string, RegExp][] = [
      ["[{", /not JSON/],
      ['{"b":1,"c":{}}', /must be a JSON array/],
      ["[]", /empty command batch/],
      ["[1]", /item 0 is not an object/],
      ['[{"b":1,"c":{}},[]]', /item 1 is not an object/],
      ['[{"c":{}}]', /item 0 has no positive budget/],
      ['[{"b":0,"c":{}}]', /item 0 has no positive budget/],
      ['[{"b":"5","c":{}}]', /item 0 has no positive budget/],
      ['[{"b":5,"r":"yes","c":{}}]', /item 0 has an unknown raw-value mode/],
      ['[{"b":5}]', /item 0 has no command/],
    ];
    for (const [body, error] of cases) assert.throws(() => decodeCommandBatch(text(body)), error, body);
    // Bytes that are not UTF-8 are not silently replaced.
    assert.throws(() => decodeCommandBatch(new Uint8Array([0x5b, 0xff, 0x5d])), /not JSON/);
  });

  it("a reply message comes back reply by reply with each one's index, raw-value framing included", () => {
    const replies = [
      { index: 3, data: encodeReply({ ok: true, value: { a: 1 } }, undefined) },
      { index: 0, data: encodeReply({ ok: true, value: { x: "é" } }, true) },
      {
        index: 1,
        data: encodeReply({ ok: false, error: { code: "conflict", message: "no" } } as Reply<unknown>, undefined),
      },
      { index: 2, data: new Uint8Array(0) },
    ];
    const data = encodeReplyBatch(replies);
    assert.equal(data[0], BATCH_REPLY_MARK);
    const back = decodeReplyBatch(data, 4)!;
    assert.deepEqual(
      back.map((r) => [r.index, [...r.data]]),
      replies.map((r) => [r.index, [...r.data]]),
    );
    assert.deepEqual(decodeReply(back[0]!.data), { ok: true, value: { a: 1 } });
    assert.deepEqual(decodeReply(back[1]!.data), { ok: true, value: { rawJson: '{"x":"é"}' } });
  });

  it("a reply for the whole batch is told apart; a broken reply message is an error that says so", () => {
    const whole = encodeJson({ ok: false, error: { code: "bad-request", message: "undecodable" } });
    assert.equal(decodeReplyBatch(whole, 3), undefined);
    const good = encodeReplyBatch([
      { index: 0, data: text("{}") },
      { index: 1, data: text('{"ok":true}') },
    ]);
    assert.throws(() => decodeReplyBatch(good, 1), /a batch reply for command 1 of a batch of 1/);
    assert.throws(() => decodeReplyBatch(good.subarray(0, 5), 2), /cut inside an index or length/);
    assert.throws(() => decodeReplyBatch(good.subarray(0, good.length - 1), 2), /cut inside a reply/);
    assert.throws(() => decodeReplyBatch(new Uint8Array([BATCH_REPLY_MARK]), 2), /without replies/);
  });
});

describe("command batches over NATS", () => {
  let server: RunningServer;
  const connections: NatsConnection[] = [];
  const connection = async (name: string) => {
    const made = await connectNats({ url: server.url, name, onChange: () => {} });
    connections.push(made);
    return made;
  };
  before(async () => {
    server = await startNats();
  });
  after(async () => {
    await Promise.all(connections.map((c) => (c.isClosed() ? undefined : c.close())));
    await server?.stop();
  });
  // A probe on the batch subjects is a subscriber: it would keep "no responders" from a later test.
  const probes: NatsConnection[] = [];
  afterEach(async () => {
    await Promise.all(probes.splice(0).map((p) => p.close()));
  });

  /** Every command batch on the wire: how many commands each carried. */
  const watchBatches = async () => {
    const sizes: number[] = [];
    const probe = await connection("probe");
    probes.push(probe);
    probe.subscribe(`${BATCH_SUBJECT_PREFIX}.>`, {
      callback: (_error, msg) => {
        try {
          sizes.push(decodeCommandBatch(msg.data).length);
        } catch {
          sizes.push(Number.NaN); // a later test's deliberately broken batch
        }
      },
    });
    await probe.flush();
    return sizes;
  };

  /** 16 writers, 5 writes each, one after the other per writer, all to one submodel. */
  const writeConcurrently = async (client: ReturnType<typeof createNatsStoreClient>) => {
    const sent: string[][] = Array.from({ length: 16 }, () => []);
    await Promise.all(
      sent.map(async (mine, w) => {
        for (let i = 0; i < 5; i++) {
          const body = `${w}.${i}`;
          mine.push(body);
          const reply = await client.execute(patch(body));
          assert.deepEqual(reply, { ok: true, value: { applied: body } });
        }
      }),
    );
    return sent;
  };

  it("writes for one replica sent in one turn go as one batch; each answer reaches its writer, in order", async () => {
    const sizes = await watchBatches();
    const handler = slowHandler();
    const responder = await serveCommandsOverNats({ connection: await connection("store"), handler });
    const client = createNatsStoreClient({ connection: await connection("gateway") });
    try {
      await untilReplicaKnown();
      const sent = await writeConcurrently(client);
      assert.equal(handler.applied.length, 80);
      // Each writer's writes reached the store in the order it sent them.
      for (const mine of sent)
        assert.deepEqual(
          handler.applied.filter((b) => mine.includes(b)),
          mine,
        );
      assert.ok(
        sizes.some((n) => n > 1),
        `writes that arrived while a batch was out left together (batches seen: ${sizes.join(",")})`,
      );
      assert.ok(sizes.length < 80, "fewer messages than writes");
    } finally {
      await client.close();
      await responder.close();
    }
  });

  it("with two replicas each gets the batches of its own submodels", async () => {
    const subjects: string[] = [];
    const probe = await connection("probe-2");
    probes.push(probe);
    probe.subscribe(`${BATCH_SUBJECT_PREFIX}.>`, {
      callback: (_error, msg) => {
        subjects.push(msg.subject);
      },
    });
    await probe.flush();
    const handlers = [slowHandler(), slowHandler()];
    const responders = await Promise.all(
      handlers.map(async (handler, i) =>
        serveCommandsOverNats({ connection: await connection(`store-${i}`), handler }),
      ),
    );
    const client = createNatsStoreClient({ connection: await connection("gateway-2") });
    try {
      await untilReplicaKnown();
      const submodels = Array.from({ length: 20 }, (_, i) => `urn:example:sm:two:${i}`);
      const replies = await Promise.all(
        Array.from({ length: 5 }, (_, round) =>
          Promise.all(submodels.map((id) => client.execute(patch(`${id}#${round}`, id)))),
        ),
      );
      for (const reply of replies.flat()) assert.equal(reply.ok, true);
      const servedBy = handlers.map((h) => new Set(h.applied.map((body) => body.split("#")[0])));
      for (const id of submodels)
        assert.equal(Number(servedBy[0]!.has(id)) + Number(servedBy[1]!.has(id)), 1, `${id} went to one replica`);
      assert.ok(
        servedBy.every((ids) => ids.size > 0),
        "both replicas served writes",
      );
      for (const responder of responders)
        assert.ok(subjects.includes(batchSubject(responder.replicaId)), "each replica got batches of its own");
    } finally {
      await client.close();
      await Promise.all(responders.map((r) => r.close()));
    }
  });

  it("a batch for a replica that is gone reaches nobody; its writes go alone to the replica that is left", async () => {
    const handlers = [slowHandler(), slowHandler()];
    const sides = [await connection("store-left"), await connection("store-gone")];
    const responders = await Promise.all(
      handlers.map((handler, i) => serveCommandsOverNats({ connection: sides[i]!, handler })),
    );
    const client = createNatsStoreClient({ connection: await connection("gateway-3") });
    try {
      await untilReplicaKnown();
      // The second replica dies without a goodbye; the client still routes to it until it expires.
      const gone = responders[1]!.replicaId;
      await sides[1]!.close();
      const raw = await connection("probe-3");
      for (let attempt = 0; ; attempt++) {
        try {
          await raw.request(batchSubject(gone), text("[]"), { timeout: 250 });
        } catch (error) {
          if (/no responders/i.test((error as Error).message)) break;
        }
        assert.ok(attempt < 100, "the server noticed the replica's death");
      }
      // Sent in one turn: one batch to each replica, the dead one's answered "no responders".
      const submodels = Array.from({ length: 20 }, (_, i) => `urn:example:sm:gone:${i}`);
      const replies = await Promise.all(submodels.map((id) => client.execute(patch(`${id}#1`, id))));
      for (const reply of replies) assert.deepEqual(reply.ok, true, JSON.stringify(reply));
      assert.equal(handlers[0]!.applied.filter((b) => b.endsWith("#1")).length, 20, "the replica left took them all");
    } finally {
      await client.close();
      await responders[0]!.close();
    }
  });

  it("a model-store that does not announce batches gets single commands, and every write works", async () => {
    const sizes = await watchBatches();
    const handler = slowHandler();
    const responder = await serveCommandsOverNats({
      connection: await connection("old-store"),
      handler,
      acceptBatches: false,
    });
    const client = createNatsStoreClient({ connection: await connection("new-gateway") });
    try {
      await untilReplicaKnown();
      await writeConcurrently(client);
      assert.equal(handler.applied.length, 80);
      assert.deepEqual(sizes, [], "no batch was sent to a store that did not ask for them");
    } finally {
      await client.close();
      await responder.close();
    }
  });

  it("the store answers a broken batch with one clear failure, and a command that may not travel in a batch on its own", async () => {
    const handler = slowHandler();
    const responder = await serveCommandsOverNats({ connection: await connection("store-3"), handler });
    const raw = await connection("raw-client");
    try {
      const subject = batchSubject(responder.replicaId);
      const broken = await raw.request(subject, text('[{"b":5}]'), { timeout: 2000 });
      assert.deepEqual(decodeReply(broken.data), {
        ok: false,
        error: { code: "bad-request", message: 'undecodable command batch: command batch item 0 has no command "c"' },
      });
      const read = { type: "GetSubmodelById", params: { submodelId: "urn:x" } };
      // Answers come as the commands are done: the two refused at once in one message, the write
      // (the handler takes a few ms) in a later one. Collected until all three are in.
      const inbox = createInbox();
      const messages: Msg[] = [];
      const answers = new Map<number, unknown>();
      const allAnswered = new Promise<void>((resolve) => {
        raw.subscribe(inbox, {
          callback: (_error, msg) => {
            messages.push(msg);
            for (const r of decodeReplyBatch(msg.data, 3)!) answers.set(r.index, decodeReply(r.data));
            if (answers.size === 3) resolve();
          },
        });
      });
      await raw.flush();
      raw.publish(
        subject,
        encodeCommandBatch([
          { budgetMs: 2000, rawValue: undefined, command: encodeJson(patch("7")) },
          { budgetMs: 2000, rawValue: undefined, command: encodeJson(read) },
          { budgetMs: 2000, rawValue: undefined, command: text('{"params":{}}') },
        ]),
        { reply: inbox },
      );
      await allAnswered;
      assert.equal(messages.length, 2, "the refusals did not wait for the write");
      assert.deepEqual(
        decodeReplyBatch(messages[0]!.data, 3)!.map((r) => r.index),
        [1, 2],
      );
      const [first, second, third] = [answers.get(0), answers.get(1), answers.get(2)];
      assert.deepEqual(first, { ok: true, value: { applied: "7" } });
      assert.match(
        (second as { error: { message: string } }).error.message,
        /GetSubmodelById command cannot travel in a command batch/,
      );
      assert.match((third as { error: { message: string } }).error.message, /no command type/);
      assert.deepEqual(handler.applied, ["7"]);
    } finally {
      await responder.close();
    }
  });
});

/** Applies each write a few ms after it arrives, in arrival order (as a store's commit would). */
function slowHandler(): CommandHandler & { applied: string[] } {
  const applied: string[] = [];
  let chain = Promise.resolve();
  return {
    applied,
    execute<T extends CommandType>(command: Command<T>): Promise<Reply<CommandResult<T>>> {
      const body = (command.params as { body: string }).body;
      const done = chain.then(async () => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        applied.push(body);
        return { ok: true, value: { applied: body } } as Reply<CommandResult<T>>;
      });
      chain = done.then(() => {});
      return done;
    },
  };
}

/** A client asks who is there when it starts; what it sends before the answer goes to the queue group, alone. */
function untilReplicaKnown(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 150));
}
