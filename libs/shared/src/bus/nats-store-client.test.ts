import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { natsForSuite } from "../../../../tests/test-support/nats-for-suite.ts";
import { type Command, CommandError, type CommandResult, type CommandType, type Reply } from "../contracts/index.ts";
import type { CommandHandler } from "../engine/ports/index.ts";
import { bigJsonText, storeClientContract } from "../test-support/index.ts";
import { serveCommandsOverNats } from "./command-responder.ts";
import { createNatsStoreClient } from "./nats-store-client.ts";

const quiet = () => {};

describe("NATS store client and command responder", () => {
  const { connection } = natsForSuite();

  // Responder and client on separate connections, as the model-store and a gateway would be.
  storeClientContract("nats", async (handler) => {
    const storeSide = await connection("model-store");
    const gatewaySide = await connection("gateway");
    const responder = await serveCommandsOverNats({ connection: storeSide, handler, onError: quiet });
    const client = createNatsStoreClient({ connection: gatewaySide });
    return {
      client,
      async close() {
        await client.close();
        await responder.close();
        await storeSide.close();
        await gatewaySide.close();
      },
    };
  });

  it("answers `unavailable` at once when no model-store serves commands", async () => {
    const client = createNatsStoreClient({ connection: await connection("lonely-gateway"), requestTimeoutMs: 3_000 });
    const started = Date.now();
    const reply = await client.execute({ type: "GetSequence", params: {} });
    assert.equal(reply.ok, false);
    if (!reply.ok) assert.equal(reply.error.code, "unavailable");
    assert.ok(Date.now() - started < 1_000, "no-responders is reported by the server, not by the timer");
    await client.close();
  });

  it("hands each command to exactly one of two replicas, large requests included", async () => {
    const replicas = [countingHandler("a"), countingHandler("b")];
    const responders = await Promise.all(
      replicas.map(async (handler, i) =>
        serveCommandsOverNats({ connection: await connection(`replica-${i}`), handler, onError: quiet }),
      ),
    );
    const client = createNatsStoreClient({ connection: await connection("gateway"), requestTimeoutMs: 20_000 });
    try {
      const small = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          client.execute({ type: "GetAssetAdministrationShellById", params: { aasId: `aas-${i}` } }),
        ),
      );
      // Chunks of one upload must all reach the replica that took its "begin" message.
      const body = bigJsonText(2 * 1024 * 1024);
      const large = await Promise.all(
        Array.from({ length: 6 }, () => client.execute({ type: "PostAssetAdministrationShell", params: { body } })),
      );

      small.forEach((reply, i) => {
        assert.equal(reply.ok, true);
        if (reply.ok) assert.equal((reply.value as { aasId: string }).aasId, `aas-${i}`);
      });
      large.forEach((reply) => assert.deepEqual(reply.ok && (reply.value as { length: number }).length, body.length));

      const handled = replicas.map((r) => r.seen);
      const all = handled.flat();
      assert.equal(all.length, 106, "every command handled once in total");
      assert.equal(new Set(all.filter((id) => id.startsWith("aas-"))).size, 100, "no command handled twice");
      assert.ok(
        handled.every((seen) => seen.length > 0),
        `both replicas took work (${handled.map((s) => s.length)})`,
      );
      // Wait a little: a duplicate delivery would show up as extra handled commands.
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(replicas.flatMap((r) => r.seen).length, 106);
    } finally {
      await client.close();
      await Promise.all(responders.map((r) => r.close()));
    }
  });

  it("keeps the code of a thrown CommandError and answers later commands", async () => {
    const handler: CommandHandler = {
      async execute<T extends CommandType>(command: Command<T>): Promise<Reply<CommandResult<T>>> {
        if (command.type === "GetSequence") return { ok: true, value: { seq: 3 } } as Reply<CommandResult<T>>;
        throw new CommandError("conflict", "idShort already used", { path: "a.b", details: ["x"] });
      },
    };
    const responder = await serveCommandsOverNats({ connection: await connection("store"), handler, onError: quiet });
    const client = createNatsStoreClient({ connection: await connection("gateway") });
    try {
      const reply = await client.execute({ type: "PostSubmodelElement", params: { submodelId: "sm", body: "{}" } });
      assert.deepEqual(reply, {
        ok: false,
        error: { code: "conflict", message: "idShort already used", path: "a.b", details: ["x"] },
      });
      assert.deepEqual(await client.execute({ type: "GetSequence", params: {} }), { ok: true, value: { seq: 3 } });
    } finally {
      await client.close();
      await responder.close();
    }
  });

  it("answers `bad-request` to a body that is not a command for its subject", async () => {
    const calls: string[] = [];
    const responder = await serveCommandsOverNats({
      connection: await connection("store"),
      handler: countingHandler("strict"),
      onError: (error) => calls.push(String(error)),
    });
    const raw = await connection("raw-client");
    try {
      const notJson = await raw.request("twinport.v1.cmd.GetSequence", new TextEncoder().encode("{oops"), {
        timeout: 2_000,
      });
      assert.equal(
        (JSON.parse(new TextDecoder().decode(notJson.data)) as Reply<unknown> & { ok: false }).error.code,
        "bad-request",
      );
      const wrongSubject = await raw.request(
        "twinport.v1.cmd.GetSequence",
        new TextEncoder().encode(JSON.stringify({ type: "DeleteSubmodelById", params: { submodelId: "x" } })),
        { timeout: 2_000 },
      );
      assert.equal(
        (JSON.parse(new TextDecoder().decode(wrongSubject.data)) as Reply<unknown> & { ok: false }).error.code,
        "bad-request",
      );
    } finally {
      await responder.close();
    }
  });

  it("sends a successful reply's value as text when the caller asks for rawValue, also past the chunk size", async () => {
    const objectValue = { idShort: "Ü-Test", value: [1, 2.5, 'a"b\nc'], nested: { ok: true } };
    const rawText = bigJsonText(3 * 1024 * 1024);
    const handler: CommandHandler = {
      async execute<T extends CommandType>(command: Command<T>): Promise<Reply<CommandResult<T>>> {
        const id = (command.params as { aasId: string }).aasId;
        if (id === "missing")
          return { ok: false, error: { code: "not-found", message: "no such shell" } } as Reply<CommandResult<T>>;
        const value = id === "object" ? objectValue : { rawJson: rawText };
        return { ok: true, value, revision: 42 } as Reply<CommandResult<T>>;
      },
    };
    const responder = await serveCommandsOverNats({
      connection: await connection("model-store"),
      handler,
      onError: quiet,
    });
    const client = createNatsStoreClient({ connection: await connection("gateway") });
    const get = (aasId: string, rawValue: boolean) =>
      client.execute({ type: "GetAssetAdministrationShellById", params: { aasId } }, { rawValue });

    const raw = await get("object", true);
    assert.ok(raw.ok);
    assert.equal(raw.revision, 42);
    assert.deepEqual(JSON.parse((raw.value as unknown as { rawJson: string }).rawJson), objectValue);
    assert.deepEqual(await get("object", false), { ok: true, value: objectValue, revision: 42 });
    // A value that is text already goes out as it is: no escaping, byte for byte, even chunked.
    const big = await get("big", true);
    assert.equal(big.ok && (big.value as unknown as { rawJson: string }).rawJson, rawText);
    assert.deepEqual(await get("missing", true), { ok: false, error: { code: "not-found", message: "no such shell" } });
    await client.close();
    await responder.close();
  });

  it("sends a Paged value's items as one JSON array text when the caller asks for raw items", async () => {
    const items = [{ rawJson: '{"exact":123456789012345678901234567890}' }, { idShort: "B", value: 'x"y' }, "plain"];
    const handler: CommandHandler = {
      async execute<T extends CommandType>(command: Command<T>): Promise<Reply<CommandResult<T>>> {
        const last = (command.params as { idShort?: string }).idShort === "last";
        return { ok: true, value: last ? { items } : { items, cursor: "next-page" } } as Reply<CommandResult<T>>;
      },
    };
    const responder = await serveCommandsOverNats({
      connection: await connection("model-store"),
      handler,
      onError: quiet,
    });
    const client = createNatsStoreClient({ connection: await connection("gateway") });
    const list = (idShort: string) =>
      client.execute({ type: "GetAllAssetAdministrationShells", params: { idShort } }, { rawValue: "items" });
    const page = await list("first");
    assert.ok(page.ok);
    const value = page.value as unknown as { items: { rawJson: string }; cursor?: string };
    assert.equal(value.cursor, "next-page");
    // The RawJson item keeps its exact digits: it was never parsed on the way.
    assert.equal(
      value.items.rawJson,
      '[{"exact":123456789012345678901234567890},{"idShort":"B","value":"x\\"y"},"plain"]',
    );
    const last = await list("last");
    assert.ok(last.ok);
    assert.deepEqual(Object.keys(last.value as object), ["items"]);
    await client.close();
    await responder.close();
  });

  it("lets commands in progress answer when the responder closes", async () => {
    const handler: CommandHandler = {
      async execute<T extends CommandType>(): Promise<Reply<CommandResult<T>>> {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return { ok: true, value: { seq: 1 } } as Reply<CommandResult<T>>;
      },
    };
    const responder = await serveCommandsOverNats({ connection: await connection("store"), handler, onError: quiet });
    const client = createNatsStoreClient({ connection: await connection("gateway") });
    const running = client.execute({ type: "GetSequence", params: {} });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await responder.close();
    assert.deepEqual(await running, { ok: true, value: { seq: 1 } });
    const after = await client.execute({ type: "GetSequence", params: {} });
    assert.equal(!after.ok && after.error.code, "unavailable");
    await client.close();
  });
});

/** Answers GetAssetAdministrationShellById with the id, PostAssetAdministrationShell with the body length. */
function countingHandler(name: string): CommandHandler & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    async execute<T extends CommandType>(command: Command<T>): Promise<Reply<CommandResult<T>>> {
      const params = command.params as { aasId?: string; body?: string };
      seen.push(params.aasId ?? `body-${params.body?.length}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const value =
        params.aasId !== undefined
          ? { aasId: params.aasId, replica: name }
          : { length: params.body?.length, replica: name };
      return { ok: true, value } as Reply<CommandResult<T>>;
    },
  };
}
