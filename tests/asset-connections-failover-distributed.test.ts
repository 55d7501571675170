/**
 * A write made while no replica runs the asset connection, black-box in distributed mode:
 * redis-server, nats-server, two model-store replicas, an http-gateway and an HTTP asset as real
 * processes, once with the write made after the kill and once with it still waiting in the killed
 * holder (test-support/asset-failover-scenario.ts, docs/adr/0059).
 */
import { afterEach, beforeEach, test } from "node:test";
import {
  failoverAssetConnection,
  TRIMMED_EVENT_LOG,
  writeSurvivesFailover,
} from "./test-support/asset-failover-scenario.ts";
import { type AssetFleet, startAssetFleet } from "./test-support/asset-fleet.ts";
import { type HttpAsset, startHttpAsset } from "./test-support/asset-peers.ts";
import { type RunningServer, startNats, startRedis } from "./test-support/servers.ts";

let redis: RunningServer;
let nats: RunningServer;
let asset: HttpAsset;
let fleet: AssetFleet | undefined;

/** The test whose name says so runs with a short event log. */
const TRIMMED = "no longer in the event log";

beforeEach(async (t) => {
  [redis, nats, asset] = await Promise.all([startRedis(), startNats(), startHttpAsset()]);
  asset.documents.set("/setpoint", 1);
  fleet = await startAssetFleet({
    name: "asset-failover",
    redisUrl: redis.url,
    natsUrl: nats.url,
    assetConnection: failoverAssetConnection(asset),
    core: { managementPort: -1 },
    ...(t.name.includes(TRIMMED) ? { events: TRIMMED_EVENT_LOG } : {}),
  });
});

afterEach(
  async () => {
    await fleet?.stop();
    fleet = undefined;
    await asset?.stop();
    await nats?.stop();
    await redis?.stop();
  },
  { timeout: 30_000 },
);

test("a write committed while no replica holds the lease reaches the asset, and the model keeps it", async () => {
  await writeSurvivesFailover(asset, fleet!.stores, () => fleet!.client);
});

test("a write the killed holder had not yet got to the asset (it answered 503) reaches it from the next holder", async () => {
  await writeSurvivesFailover(asset, fleet!.stores, () => fleet!.client, "unwritten");
});

test("a value the killed holder had written is not written to the asset again by the next holder", async () => {
  await writeSurvivesFailover(asset, fleet!.stores, () => fleet!.client, "written");
});

test("a write the asset refuses when the next holder forwards it: the model returns to the asset's value", async () => {
  await writeSurvivesFailover(asset, fleet!.stores, () => fleet!.client, "refused");
});

test("a write the killed holder had not yet got to the asset, no longer in the event log when the next holder takes over: a warning says so", async () => {
  await writeSurvivesFailover(asset, fleet!.stores, () => fleet!.client, "trimmed");
});
