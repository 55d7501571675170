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
import { redisConnectionLeases } from "./connection-lease.ts";
import { type RunningAssetConnections, startAssetConnections } from "./start-asset-connections.ts";
import { assetConnectionsConfig, startTestStore, type TestStore, until } from "./test-support/asset-connections.ts";

let redis: RunningServer;
let repository: RedisRepository;
let asset: HttpAsset;
const stores: TestStore[] = [];

before(async () => {
  redis = await startRedis();
  repository = await createRedisRepository({ url: redis.url, keyPrefix: "lease-test" });
  asset = await startHttpAsset();
});
after(async () => {
  for (const store of stores) await store.close();
  await asset.stop();
  await repository.close();
  await redis.stop();
});

/** One "replica": its own engine, asset connections with leases in the shared Redis. */
async function replica(owner: string): Promise<RunningAssetConnections> {
  const sut = await startTestStore(ASSET_TEST_MODEL);
  stores.push(sut);
  return startAssetConnections({
    connections: assetConnectionsConfig({
      "@class": "assetconnection.http.HttpAssetConnection",
      baseUrl: asset.url,
      headers: { "X-Replica": "any" },
      subscriptionProviders: {
        [`(Submodel)${DRIVE_SUBMODEL_ID}, (Property)Temperature`]: { format: "JSON", path: "/t", interval: 100 },
      },
      operationProviders: {
        [`(Submodel)${DRIVE_SUBMODEL_ID}, (Operation)Calibrate`]: {
          format: "JSON",
          path: "/calibrate",
          template: "{}",
        },
      },
    }),
    store: sut.store,
    bus: sut.bus,
    operationProviders: sut.registry,
    leases: redisConnectionLeases({ redis: repository.redis, key: (name) => repository.key(name), owner, ttlMs: 600 }),
    retryIntervalMs: 100,
    readTimeoutMs: 1000,
    log: () => {},
  });
}

test("one replica runs the connection; when it stops the other takes over; both keep the operation provider", async () => {
  asset.documents.set("/t", 20);
  const first = await replica("replica-a");
  const second = await replica("replica-b");
  await until(() => first.status()[0]!.leaseHeld || second.status()[0]!.leaseHeld, "a lease holder");
  await new Promise((resolve) => setTimeout(resolve, 700));
  const holders = [first, second].filter((r) => r.status()[0]!.leaseHeld);
  assert.equal(holders.length, 1, "exactly one holder");
  const [holder, standby] = holders[0] === first ? [first, second] : [second, first];
  assert.equal(standby.status()[0]!.state, "standby");
  // One poller: about one request per 100 ms, not two.
  const before = asset.requests.length;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const polls = asset.requests.length - before;
  assert.ok(polls >= 5 && polls <= 13, `${polls} polls in 1 s`);
  for (const store of stores)
    assert.ok(store.registry.find(DRIVE_SUBMODEL_ID, "Calibrate"), "every replica registers operation providers");

  await holder.stop();
  const stoppedAt = Date.now();
  await until(() => standby.status()[0]!.leaseHeld && standby.status()[0]!.state === "connected", "the takeover", 3000);
  assert.ok(Date.now() - stoppedAt < 600, "a released lease is taken at the next renewal, not after it expired");
  const seen = asset.requests.length;
  await until(() => asset.requests.length > seen + 2, "polls by the new holder");
  await standby.stop();
});
