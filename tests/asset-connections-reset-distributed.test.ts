/**
 * /reset removes the configured asset connections, distributed mode, black-box: redis-server,
 * nats-server, two model-store replicas and an http-gateway as real processes. The reset runs in
 * one replica; when it answers, both have stopped the connection (the steps in
 * test-support/asset-reset-scenario.ts, plus each replica's log line).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { Redis } from "ioredis";
import { type AssetFleet, startAssetFleet } from "./test-support/asset-fleet.ts";
import { type HttpAsset, startHttpAsset } from "./test-support/asset-peers.ts";
import {
  prepareResetAsset,
  resetAssetConnection,
  resetRemovesAssetConnections,
} from "./test-support/asset-reset-scenario.ts";
import { eventually } from "./test-support/eventually.ts";
import { type RunningServer, startNats, startRedis } from "./test-support/servers.ts";

let redis: RunningServer;
let nats: RunningServer;
let asset: HttpAsset;
let fleet: AssetFleet;

before(async () => {
  [redis, nats, asset] = await Promise.all([startRedis(), startNats(), startHttpAsset()]);
  prepareResetAsset(asset);
  fleet = await startAssetFleet({
    name: "asset-reset",
    redisUrl: redis.url,
    natsUrl: nats.url,
    assetConnection: resetAssetConnection(asset),
  });
});

// Bounded: after a failed start (a port taken under load) the clean-up must end, not stall the run.
after(
  async () => {
    await fleet?.stop();
    await asset?.stop();
    await nats?.stop();
    await redis?.stop();
  },
  { timeout: 30_000 },
);

test("after /reset and /import of the same model, no replica runs the configured connection any more", async () => {
  await resetRemovesAssetConnections(fleet.client, asset, async () => {
    // One replica ran the reset, the other learnt of it (log lines reach the files a little later than the answer).
    await eventually(
      () =>
        fleet.stores.map((store) =>
          /(\/reset|a \/reset in another process): stopped assetConnections\[0\]/.test(
            readFileSync(store.logFile, "utf8"),
          ),
        ),
      (stopped) => stopped.every(Boolean),
      "each replica's log line of stopping the connection",
    );
    // Nor does a holder started later forward a change made before the reset (docs/adr/0059):
    // the positions the holders had forwarded up to are gone with the model.
    const redisClient = new Redis(redis.url);
    try {
      assert.deepEqual(await redisClient.keys("*asset-connection:forwarded*"), []);
    } finally {
      redisClient.disconnect();
    }
  });
});
