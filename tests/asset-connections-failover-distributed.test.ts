/**
 * A write made while no replica runs the asset connection, black-box in distributed mode:
 * redis-server, nats-server, two model-store replicas, an http-gateway and an HTTP asset as real
 * processes, once with the write made after the kill and once with it still waiting in the killed
 * holder (test-support/asset-failover-scenario.ts, docs/adr/0059).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { failoverAssetConnection, writeSurvivesFailover } from "./test-support/asset-failover-scenario.ts";
import { ASSET_TEST_MODEL, type HttpAsset, startHttpAsset } from "./test-support/asset-peers.ts";
import { createHttpClient, type HttpClient } from "./test-support/http-client.ts";
import { freePort, type RunningServer, startNats, startRedis } from "./test-support/servers.ts";
import { findCertificate, startTwinport, type TwinportProcess } from "./test-support/system.ts";

let redis: RunningServer;
let nats: RunningServer;
let asset: HttpAsset;
let stores: TwinportProcess[] = [];
let gateway: TwinportProcess;
let client: HttpClient;
const dirs: string[] = [];

beforeEach(async () => {
  [redis, nats, asset] = await Promise.all([startRedis(), startNats(), startHttpAsset()]);
  asset.documents.set("/setpoint", 1);
  const httpPort = await freePort();
  const config = JSON.stringify({
    core: { assetConnectionRetryInterval: 200, managementPort: -1 },
    persistence: { "@class": "persistence.redis.PersistenceRedis", url: redis.url },
    messageBus: { "@class": "messagebus.nats.MessageBusNats", url: nats.url },
    endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: true }],
    assetConnections: [failoverAssetConnection(asset)],
  });
  const start = (role: "model-store" | "http-gateway", args: string[] = []) => {
    const cwd = mkdtempSync(join(tmpdir(), `twinport-asset-failover-${role}-`));
    dirs.push(cwd);
    writeFileSync(join(cwd, "config.json"), config);
    writeFileSync(join(cwd, "model.json"), JSON.stringify(ASSET_TEST_MODEL));
    return startTwinport({ role, cwd, args: ["-c", "config.json", ...args] });
  };
  stores = await Promise.all([start("model-store", ["-m", "model.json"]), start("model-store", ["-m", "model.json"])]);
  gateway = await start("http-gateway");
  client = createHttpClient(`https://127.0.0.1:${httpPort}/api/v3.0`, { ca: findCertificate(dirs.at(-1)!) });
});

afterEach(
  async () => {
    client?.close();
    await Promise.all([...stores, gateway].filter(Boolean).map((p) => p.stop()));
    await asset?.stop();
    await nats?.stop();
    await redis?.stop();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  },
  { timeout: 30_000 },
);

test("a write committed while no replica holds the lease reaches the asset, and the model keeps it", async () => {
  await writeSurvivesFailover(asset, stores, () => client);
});

test("a write the killed holder had not yet got to the asset (it answered 503) reaches it from the next holder", async () => {
  await writeSurvivesFailover(asset, stores, () => client, "unwritten");
});

test("a value the killed holder had written is not written to the asset again by the next holder", async () => {
  await writeSurvivesFailover(asset, stores, () => client, "written");
});

test("a write the asset refuses when the next holder forwards it: the model returns to the asset's value", async () => {
  await writeSurvivesFailover(asset, stores, () => client, "refused");
});
