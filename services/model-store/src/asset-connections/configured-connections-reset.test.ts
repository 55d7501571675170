import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  ASSET_TEST_MODEL,
  DRIVE_SUBMODEL_ID,
  type HttpAsset,
  startHttpAsset,
} from "../../../../tests/test-support/asset-peers.ts";
import { type RunningServer, startRedis } from "../../../../tests/test-support/servers.ts";
import { createRedisRepository, type RedisRepository } from "../redis/redis-repository.ts";
import { dropConfiguredConnectionsOnReset } from "./configured-connections-reset.ts";
import { redisConnectionLeases, soleOwnerLeases } from "./connection-lease.ts";
import { type RunningAssetConnections, startAssetConnections } from "./start-asset-connections.ts";
import { assetConnectionsConfig, startTestStore, type TestStore, until } from "./test-support/asset-connections.ts";

let redis: RunningServer;
let repository: RedisRepository;
let asset: HttpAsset;
const closing: (() => Promise<unknown>)[] = [];

before(async () => {
  redis = await startRedis();
  repository = await createRedisRepository({ url: redis.url, keyPrefix: "reset-test" });
  asset = await startHttpAsset();
  asset.documents.set("/t", 20);
});
after(async () => {
  for (const step of closing.reverse()) await step();
  await asset.stop();
  await repository.close();
  await redis.stop();
});

interface Replica {
  store: TestStore;
  connections: RunningAssetConnections;
  lines: string[];
  /** Stops its checks (a clean shutdown). */
  stopChecks: () => Promise<void>;
}

/**
 * One process: its own engine (memory) and asset connections, leases and the reset counter in the
 * shared Redis (`shared: false`: alone with its store, as embedded on memory).
 */
async function replica(owner: string, shared = true): Promise<Replica> {
  const resetHooks: (() => Promise<void>)[] = [];
  const store = await startTestStore(ASSET_TEST_MODEL, { resetHooks });
  closing.push(() => store.close());
  const lines: string[] = [];
  const connections = await startAssetConnections({
    connections: assetConnectionsConfig({
      "@class": "assetconnection.http.HttpAssetConnection",
      baseUrl: asset.url,
      subscriptionProviders: {
        [`(Submodel)${DRIVE_SUBMODEL_ID}, (Property)Temperature`]: { format: "JSON", path: "/t", interval: 50 },
      },
      operationProviders: {
        [`(Submodel)${DRIVE_SUBMODEL_ID}, (Operation)Calibrate`]: {
          format: "JSON",
          path: "/calibrate",
          template: "{}",
        },
      },
    }),
    store: store.store,
    bus: store.bus,
    operationProviders: store.registry,
    leases: shared
      ? redisConnectionLeases({ redis: repository.redis, key: (name) => repository.key(name), owner, ttlMs: 600 })
      : soleOwnerLeases,
    retryIntervalMs: 100,
    readTimeoutMs: 1000,
    log: (line) => lines.push(line),
  });
  closing.push(() => connections.stop());
  const stopChecks = await dropConfiguredConnectionsOnReset({
    connections,
    resetHooks,
    ...(shared ? { redis: { redis: repository.redis, key: (name: string) => repository.key(name), owner } } : {}),
    checkIntervalMs: 100,
    replicaTtlMs: 1000,
    log: (line) => lines.push(line),
  });
  closing.push(stopChecks);
  return { store, connections, lines, stopChecks };
}

async function reset(replica: Replica): Promise<void> {
  const reply = await replica.store.store.execute({ type: "ResetStore", params: {} });
  assert.ok(reply.ok, JSON.stringify(reply));
}

const hasProvider = (replica: Replica) => replica.store.registry.find(DRIVE_SUBMODEL_ID, "Calibrate") !== undefined;

/** Requests to the asset during `ms`: none once every connection is gone. */
async function requestsDuring(ms: number): Promise<number> {
  const before = asset.requests.length;
  await new Promise((resolve) => setTimeout(resolve, ms));
  return asset.requests.length - before;
}

test("alone with its store: /reset stops the file's connections and unregisters their operation providers", async () => {
  const alone = await replica("alone", false);
  await until(() => alone.connections.status()[0]?.state === "connected", "the connection");
  assert.ok(hasProvider(alone));
  await reset(alone);
  assert.equal(hasProvider(alone), false, "no operation provider after /reset");
  assert.deepEqual(alone.connections.status(), []);
  assert.equal(await requestsDuring(300), 0, "no more polls");
  assert.ok(
    alone.lines.some((line) => /\/reset: stopped assetConnections\[0\]/.test(line)),
    alone.lines.join("\n"),
  );
  await alone.stopChecks();
});

test("on Redis: /reset in one replica has every replica drop the file's connections before it deletes the model", async () => {
  const a = await replica("replica-a");
  const b = await replica("replica-b");
  await until(() => [a, b].some((r) => r.connections.status()[0]?.state === "connected"), "a lease holder");
  assert.ok(hasProvider(a) && hasProvider(b));

  // Whichever replica holds the lease, the reset runs in `a`: `b` has dropped its connections when it answers.
  await reset(a);
  for (const r of [a, b]) {
    assert.equal(hasProvider(r), false, "no operation provider left in any replica");
    assert.deepEqual(r.connections.status(), []);
  }
  assert.equal(await requestsDuring(400), 0, "no replica polls the asset any more");
  assert.ok(
    b.lines.some((line) => /a \/reset in another process: stopped assetConnections\[0\]/.test(line)),
    b.lines.join("\n"),
  );

  // A replica started after the reset runs its connections (like a restart); the next reset drops them too.
  const c = await replica("replica-c");
  await until(() => c.connections.status()[0]?.state === "connected", "the late replica's connection");
  assert.ok(hasProvider(c));
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.ok(hasProvider(c), "an earlier reset does not concern a replica that started after it");
  await reset(b);
  assert.equal(hasProvider(c), false);
  assert.equal(await requestsDuring(300), 0);
});

test("a replica that died is waited for only until its entry expires", async () => {
  const d = await replica("replica-d");
  // A replica that registered and then died without leaving: its entry stays until it expires.
  const ghost = await replica("replica-ghost");
  const entry = await repository.redis.hget(repository.key("asset-connections:reset-replicas"), "replica-ghost");
  assert.ok(entry, "a running replica has an entry");
  await ghost.connections.stop();
  await ghost.stopChecks();
  await repository.redis.hset(repository.key("asset-connections:reset-replicas"), "replica-ghost", entry);
  const started = Date.now();
  await reset(d);
  const waited = Date.now() - started;
  assert.ok(waited < 2500, `waited ${waited} ms (entries live 1 s)`);
  assert.equal(hasProvider(d), false);
  assert.equal(
    await repository.redis.hget(repository.key("asset-connections:reset-replicas"), "replica-ghost"),
    null,
    "the expired entry is gone",
  );
});
