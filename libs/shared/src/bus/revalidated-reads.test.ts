import assert from "node:assert/strict";
import { test } from "node:test";
import { type Command, isRawJson, type Reply } from "../contracts/index.ts";
import { createEngine } from "../engine/create-engine.ts";
import { createDirectStoreClient } from "../engine/memory/direct-store-client.ts";
import { createMemoryRepository } from "../engine/memory/memory-repository.ts";
import type { ExecuteOptions, StoreClient } from "../engine/ports/index.ts";
import { createRevalidatedReads } from "./revalidated-reads.ts";

const SM = "urn:test:revalidated";
const MODEL = JSON.stringify({
  submodels: [
    {
      modelType: "Submodel",
      id: SM,
      idShort: "S",
      submodelElements: [{ modelType: "Property", idShort: "P", valueType: "xs:int", value: "1" }],
    },
  ],
});

/** The real engine, with every command and reply it sees written down. */
async function engineStore() {
  const engine = createEngine({ repository: createMemoryRepository() });
  const direct = createDirectStoreClient(engine);
  const seen: { command: Command; reply: Reply<unknown> }[] = [];
  const recording: StoreClient = {
    async execute(command, options?: ExecuteOptions) {
      const reply = await direct.execute(command, options);
      seen.push({ command, reply });
      return reply as never;
    },
    close: () => direct.close(),
  };
  const loaded = await direct.execute({ type: "LoadEnvironment", params: { body: MODEL } });
  assert.ok(loaded.ok);
  return { seen, store: createRevalidatedReads(recording, { maxBytes: 1024 * 1024 }) };
}

const getSubmodel: Command<"GetSubmodelById"> = { type: "GetSubmodelById", params: { submodelId: SM } };
const text = (reply: Reply<unknown>) => (reply.ok && isRawJson(reply.value) ? reply.value.rawJson : undefined);

test("a repeated read names the revision it holds; the store answers without the value, the held text is answered", async () => {
  const { seen, store } = await engineStore();
  const first = await store.execute(getSubmodel, { rawValue: true });
  const second = await store.execute(getSubmodel, { rawValue: true });
  assert.ok(first.ok && second.ok);
  assert.equal(text(second), text(first));
  assert.equal(second.revision, first.revision);
  assert.equal(second.unchanged, undefined, "the caller never sees the store's 'unchanged'");
  assert.equal(seen[1]!.command.knownRevision, first.revision);
  assert.equal(seen[1]!.reply.ok && seen[1]!.reply.unchanged, true);
  assert.equal(seen[1]!.reply.ok && text(seen[1]!.reply), "null", "the value did not travel");
});

test("after a write the store sends the new answer, which is held from then on", async () => {
  const { seen, store } = await engineStore();
  const before = await store.execute(getSubmodel, { rawValue: true });
  const write = await store.execute({
    type: "PatchSubmodelElementValueByPath",
    params: { submodelId: SM, idShortPath: "P", body: "2" },
  });
  assert.ok(write.ok && before.ok);
  const after = await store.execute(getSubmodel, { rawValue: true });
  assert.ok(after.ok);
  assert.notEqual(after.revision, before.revision);
  assert.match(text(after)!, /"value":"2"/);
  const last = seen.at(-1)!.reply;
  assert.ok(last.ok);
  assert.equal(last.unchanged, undefined);
  const again = await store.execute(getSubmodel, { rawValue: true });
  assert.equal(text(again), text(after));
  assert.equal(seen.at(-1)!.command.knownRevision, after.revision);
});

test("another principal or other modifiers are another answer: never served from one another", async () => {
  const { seen, store } = await engineStore();
  await store.execute(getSubmodel, { rawValue: true });
  const value = await store.execute(
    { ...getSubmodel, params: { submodelId: SM, modifiers: { content: "value" } } },
    { rawValue: true },
  );
  assert.equal(seen.at(-1)!.command.knownRevision, undefined);
  assert.equal(text(value), '{"P":1}');
  await store.execute({ ...getSubmodel, principal: { kind: "user", name: "alice", roles: [] } }, { rawValue: true });
  assert.equal(seen.at(-1)!.command.knownRevision, undefined);
});

test("a failed read is passed on and holds nothing", async () => {
  const { seen, store } = await engineStore();
  const missing: Command<"GetSubmodelById"> = { type: "GetSubmodelById", params: { submodelId: "urn:none" } };
  const first = await store.execute(missing, { rawValue: true });
  assert.equal(first.ok, false);
  await store.execute(missing, { rawValue: true });
  assert.equal(seen.at(-1)!.command.knownRevision, undefined);
});
