import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { natsForSuite } from "../../../../tests/test-support/nats-for-suite.ts";
import type { Command, CommandResult, CommandType, FileStream, Reply } from "../contracts/index.ts";
import type { CommandHandler } from "../engine/ports/index.ts";
import { serveCommandsOverNats } from "./command-responder.ts";
import { createNatsStoreClient } from "./nats-store-client.ts";

const quiet = () => {};
const COMMAND: Command = { type: "GenerateSerializationByIds", params: { format: "json" } };

/**
 * A handler whose stream yields `count` chunks of `size` bytes (chunk i filled with i % 256) and
 * records how far its consumer got and whether the generator was closed.
 */
function countingHandler(count: number, size: number) {
  const state = { produced: 0, closed: false };
  const handler: CommandHandler = {
    async execute<T extends CommandType>(): Promise<Reply<CommandResult<T>>> {
      return { ok: false, error: { code: "internal", message: "only streams here" } };
    },
    async stream(): Promise<Reply<FileStream>> {
      const chunks = async function* () {
        try {
          for (let i = 0; i < count; i++) {
            state.produced++;
            yield new Uint8Array(size).fill(i % 256);
          }
        } finally {
          state.closed = true;
        }
      };
      return { ok: true, value: { contentType: "application/json", chunks: chunks() } };
    },
  };
  return { handler, state };
}

describe("streamed replies over NATS (reply-stream.ts)", () => {
  const { connection } = natsForSuite();
  const pair = async (handler: CommandHandler) => {
    const responder = await serveCommandsOverNats({ connection: await connection("store"), handler, onError: quiet });
    const client = createNatsStoreClient({ connection: await connection("gateway"), routeToReplicas: false });
    return { responder, client };
  };

  it("delivers every byte in order, far more than one NATS message holds", async () => {
    const { handler } = countingHandler(40, 300 * 1024);
    const { responder, client } = await pair(handler);
    const reply = await client.stream!(COMMAND);
    assert.ok(reply.ok);
    assert.equal(reply.value.contentType, "application/json");
    const received: Uint8Array[] = [];
    for await (const chunk of reply.value.chunks) received.push(chunk);
    const all = Buffer.concat(received);
    assert.equal(all.length, 40 * 300 * 1024);
    for (let i = 0; i < 40; i++) assert.equal(all[i * 300 * 1024 + 1000], i % 256, `chunk ${i} in its place`);
    await client.close();
    await responder.close();
  });

  it("produces only what is pulled: a reader that stops early stops the producer", async () => {
    const { handler, state } = countingHandler(1000, 64 * 1024);
    const { responder, client } = await pair(handler);
    const reply = await client.stream!(COMMAND);
    assert.ok(reply.ok);
    let taken = 0;
    for await (const _chunk of reply.value.chunks) if (++taken === 3) break;
    // The cancel reaches the replica, which closes the generator.
    for (let i = 0; i < 50 && !state.closed; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(state.closed, true, "the producer was closed");
    assert.ok(state.produced <= 5, `at most a chunk ahead of the reader, produced ${state.produced}`);
    await client.close();
    await responder.close();
  });

  it("a chunk that takes longer than a pull may wait still arrives: the pull is answered 'pull again'", async () => {
    const slow: CommandHandler = {
      execute: async () => ({ ok: false, error: { code: "internal", message: "unused" } }),
      stream: async () => ({
        ok: true,
        value: {
          contentType: "application/json",
          chunks: (async function* () {
            await new Promise((resolve) => setTimeout(resolve, 2_500));
            yield new Uint8Array([7, 8, 9]);
          })(),
        },
      }),
    };
    const responder = await serveCommandsOverNats({
      connection: await connection("store"),
      handler: slow,
      onError: quiet,
    });
    // Each pull may wait 1.5 s; the chunk takes 2.5 s.
    const client = createNatsStoreClient({
      connection: await connection("gateway"),
      routeToReplicas: false,
      requestTimeoutMs: 1_500,
    });
    const reply = await client.stream!(COMMAND);
    assert.ok(reply.ok);
    const received: number[] = [];
    for await (const chunk of reply.value.chunks) received.push(...chunk);
    assert.deepEqual(received, [7, 8, 9]);
    await client.close();
    await responder.close();
  });

  it("a failure before the body is a failure reply; one while writing breaks the stream", async () => {
    const failing: CommandHandler = {
      execute: async () => ({ ok: false, error: { code: "internal", message: "unused" } }),
      stream: async (command) =>
        (command.params as { format: string }).format === "pdf"
          ? { ok: false, error: { code: "bad-request", message: "Unknown serialization format 'pdf'" } }
          : {
              ok: true,
              value: {
                contentType: "application/json",
                chunks: (async function* () {
                  yield new Uint8Array([1]);
                  throw new Error("the store went away");
                })(),
              },
            },
    };
    const { responder, client } = await pair(failing);
    const refused = await client.stream!({ ...COMMAND, params: { format: "pdf" } } as unknown as Command);
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.error.code, "bad-request");
    const reply = await client.stream!(COMMAND);
    assert.ok(reply.ok);
    await assert.rejects(async () => {
      for await (const _chunk of reply.value.chunks);
    }, /the store went away/);
    await client.close();
    await responder.close();
  });
});
