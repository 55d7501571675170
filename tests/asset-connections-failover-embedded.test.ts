/**
 * A write made while no process runs the asset connection, black-box in embedded mode: two
 * `twinport` processes on one redis-server and one nats-server (several embedded processes on one
 * Redis share the connection leases like model-store replicas) and an HTTP asset; the client
 * writes to the surviving process (test-support/asset-failover-scenario.ts, docs/adr/0059).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import {
  failoverAssetConnection,
  TRIMMED_EVENT_LOG,
  writeSurvivesFailover,
} from "./test-support/asset-failover-scenario.ts";
import { ASSET_TEST_MODEL, type HttpAsset, startHttpAsset } from "./test-support/asset-peers.ts";
import { createHttpClient, type HttpClient } from "./test-support/http-client.ts";
import { freePort, type RunningServer, startNats, startRedis } from "./test-support/servers.ts";
import { findCertificate, startTwinport, type TwinportProcess } from "./test-support/system.ts";

let redis: RunningServer;
let nats: RunningServer;
let asset: HttpAsset;
let processes: TwinportProcess[] = [];
const clients = new Map<TwinportProcess, HttpClient>();
const dirs: string[] = [];

/** The test whose name says so runs with a short event log. */
const TRIMMED = "no longer in the event log";

beforeEach(async (t) => {
  [redis, nats, asset] = await Promise.all([startRedis(), startNats(), startHttpAsset()]);
  asset.documents.set("/setpoint", 1);
  const start = async (httpPort: number) => {
    const cwd = mkdtempSync(join(tmpdir(), "twinport-asset-failover-embedded-"));
    dirs.push(cwd);
    writeFileSync(join(cwd, "model.json"), JSON.stringify(ASSET_TEST_MODEL));
    writeFileSync(
      join(cwd, "config.json"),
      JSON.stringify({
        core: { assetConnectionRetryInterval: 200, managementPort: -1 },
        persistence: { "@class": "persistence.redis.PersistenceRedis", url: redis.url },
        messageBus: { "@class": "messagebus.nats.MessageBusNats", url: nats.url },
        endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: true }],
        assetConnections: [failoverAssetConnection(asset)],
        ...(t.name.includes(TRIMMED) ? { events: TRIMMED_EVENT_LOG } : {}),
      }),
    );
    const process = await startTwinport({ cwd, args: ["-c", "config.json", "-m", "model.json"] });
    const ca = findCertificate(cwd);
    clients.set(process, createHttpClient(`https://127.0.0.1:${httpPort}/api/v3.0`, { ca }));
    return process;
  };
  // One after the other: two processes loading the model files into one empty Redis at once clash.
  for (const port of [await freePort(), await freePort()]) processes.push(await start(port));
});

afterEach(
  async () => {
    for (const client of clients.values()) client.close();
    clients.clear();
    await Promise.all(processes.splice(0).map((p) => p.stop()));
    await asset?.stop();
    await nats?.stop();
    await redis?.stop();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  },
  { timeout: 30_000 },
);

test("a write committed while no process holds the lease reaches the asset, and the model keeps it", async () => {
  await writeSurvivesFailover(asset, processes, (survivor) => clients.get(survivor)!);
});

test("a write the killed holder had not yet got to the asset (it answered 503) reaches it from the next holder", async () => {
  await writeSurvivesFailover(asset, processes, (survivor) => clients.get(survivor)!, "unwritten");
});

test("a value the killed holder had written is not written to the asset again by the next holder", async () => {
  await writeSurvivesFailover(asset, processes, (survivor) => clients.get(survivor)!, "written");
});

test("a write the asset refuses when the next holder forwards it: the model returns to the asset's value", async () => {
  await writeSurvivesFailover(asset, processes, (survivor) => clients.get(survivor)!, "refused");
});

test("a write the killed holder had not yet got to the asset, no longer in the event log when the next holder takes over: a warning says so", async () => {
  await writeSurvivesFailover(asset, processes, (survivor) => clients.get(survivor)!, "trimmed");
});
