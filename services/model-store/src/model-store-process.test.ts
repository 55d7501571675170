import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import {
  ConfigError,
  connectNats,
  createNatsStoreClient,
  loadConfig,
  type NatsConnection,
  type StoreClient,
} from "@twinport/shared";
import { type RunningServer, startNats, startRedis } from "../../../tests/test-support/servers.ts";
import { startModelStore } from "./model-store-process.ts";

const model = {
  file: "examples/model.json",
  text: readFileSync(new URL("../../../examples/model.json", import.meta.url), "utf8"),
};
let redis: RunningServer;
let nats: RunningServer;
let connection: NatsConnection;
let store: StoreClient;

before(async () => {
  [redis, nats] = await Promise.all([startRedis(), startNats()]);
  connection = await connectNats({ url: nats.url, name: "model-store-test", onChange: () => {} });
  store = createNatsStoreClient({ connection, requestTimeoutMs: 5000 });
});

after(async () => {
  await store?.close();
  await connection?.close();
  await Promise.all([redis?.stop(), nats?.stop()]);
});

function config(keyPrefix: string) {
  return loadConfig({
    role: "model-store",
    env: {
      TWINPORT_PERSISTENCE_URL: redis.url,
      TWINPORT_PERSISTENCE_KEYPREFIX: keyPrefix,
      TWINPORT_MESSAGEBUS_URL: nats.url,
    },
  }).config;
}

async function shellCount(): Promise<number> {
  const reply = await store.execute({ type: "GetAllAssetAdministrationShells", params: {} });
  assert.ok(reply.ok, JSON.stringify(reply));
  return reply.value.items.length;
}

test("replicas starting together seed the model once; a restart keeps live data", async () => {
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);
  const [first, second] = await Promise.all([
    startModelStore(config("seed"), { models: [model], validateOnLoad: true, owner: "replica-a", log }),
    startModelStore(config("seed"), { models: [model], validateOnLoad: true, owner: "replica-b", log }),
  ]);
  const outcomes = [first.details.model, second.details.model];
  assert.deepEqual(outcomes.filter((m) => m === "kept (store not empty)").length, 1, JSON.stringify(outcomes));
  assert.deepEqual(
    outcomes.find((m) => m !== "kept (store not empty)"),
    { files: ["examples/model.json"], shells: 3, submodels: 6, conceptDescriptions: 2 },
  );
  assert.equal(first.details.redis, redis.url);
  assert.equal(await shellCount(), 3);

  // A change made through the store survives a restart that names the same model.
  const deleted = await store.execute({
    type: "DeleteAssetAdministrationShellById",
    params: { aasId: "https://example.org/aas/test-1" },
  });
  assert.ok(deleted.ok, JSON.stringify(deleted));
  await Promise.all([first.stop(), second.stop()]);
  const restarted = await startModelStore(config("seed"), { models: [model], log });
  assert.equal(restarted.details.model, "kept (store not empty)");
  assert.equal(await shellCount(), 2);
  await restarted.stop();
  assert.ok(lines.includes("twinport model-store: the store already holds data; the model files were not loaded"));
});

test("without models nothing is loaded and the store serves an empty repository", async () => {
  const running = await startModelStore(config("empty"));
  assert.equal(running.details.model, undefined);
  assert.equal(await shellCount(), 0);
  await running.stop();
  // Stopped: nobody answers any more.
  const reply = await store.execute({ type: "GetSequence", params: {} }, { deadline: Date.now() + 1000 });
  assert.equal(reply.ok, false);
});

test("a model the engine refuses stops the start and leaves nothing running", async () => {
  await assert.rejects(
    startModelStore(config("broken"), { models: [{ file: "broken.json", text: "{ not json" }] }),
    /^ModelFileError: Model file 'broken\.json' could not be loaded/,
  );
  const reply = await store.execute({ type: "GetSequence", params: {} }, { deadline: Date.now() + 1000 });
  assert.equal(reply.ok, false);
});

test("memory persistence or the internal bus are configuration errors", async () => {
  const memory = loadConfig({
    role: "model-store",
    overrides: ['persistence={"@class":"persistence.memory.PersistenceInMemory"}'],
  }).config;
  await assert.rejects(
    startModelStore(memory),
    (error: Error) =>
      error instanceof ConfigError &&
      /persistence must be persistence\.redis\.PersistenceRedis \(it is persistence\.memory\.PersistenceInMemory\)/.test(
        error.message,
      ),
  );
  const internal = loadConfig({
    role: "model-store",
    overrides: ['messageBus={"@class":"messagebus.internal.MessageBusInternal"}'],
  }).config;
  await assert.rejects(
    startModelStore(internal),
    (error: Error) =>
      error instanceof ConfigError && /messageBus must be messagebus\.nats\.MessageBusNats/.test(error.message),
  );
});
