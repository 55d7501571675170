/**
 * /reset removes the configured asset connections, distributed mode, black-box: redis-server,
 * nats-server, two model-store replicas and an http-gateway as real processes. The reset runs in
 * one replica; when it answers, both have stopped the connection (the steps in
 * test-support/asset-reset-scenario.ts, plus each replica's log line).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ASSET_TEST_MODEL, type HttpAsset, startHttpAsset } from "./test-support/asset-peers.ts";
import {
  prepareResetAsset,
  resetAssetConnection,
  resetRemovesAssetConnections,
} from "./test-support/asset-reset-scenario.ts";
import { eventually } from "./test-support/eventually.ts";
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

before(async () => {
  [redis, nats, asset] = await Promise.all([startRedis(), startNats(), startHttpAsset()]);
  prepareResetAsset(asset);
  const httpPort = await freePort();
  const config = JSON.stringify({
    core: { assetConnectionRetryInterval: 200 },
    persistence: { "@class": "persistence.redis.PersistenceRedis", url: redis.url },
    messageBus: { "@class": "messagebus.nats.MessageBusNats", url: nats.url },
    endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: true }],
    assetConnections: [resetAssetConnection(asset)],
  });
  const start = (role: "model-store" | "http-gateway", args: string[] = []) => {
    const cwd = mkdtempSync(join(tmpdir(), `twinport-asset-reset-${role}-`));
    dirs.push(cwd);
    writeFileSync(join(cwd, "config.json"), config);
    writeFileSync(join(cwd, "model.json"), JSON.stringify(ASSET_TEST_MODEL));
    return startTwinport({ role, cwd, args: ["-c", "config.json", ...args] });
  };
  stores = await Promise.all([start("model-store", ["-m", "model.json"]), start("model-store", ["-m", "model.json"])]);
  gateway = await start("http-gateway");
  client = createHttpClient(`https://127.0.0.1:${httpPort}/api/v3.0`, { ca: findCertificate(dirs.at(-1)!) });
});

// Bounded: after a failed start (a port taken under load) the clean-up must end, not stall the run.
after(
  async () => {
    client?.close();
    await Promise.all([...stores, gateway].filter(Boolean).map((p) => p.stop()));
    await asset?.stop();
    await nats?.stop();
    await redis?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  },
  { timeout: 30_000 },
);

test("after /reset and /import of the same model, no replica runs the configured connection any more", async () => {
  await resetRemovesAssetConnections(client, asset, async () => {
    // One replica ran the reset, the other learnt of it (log lines reach the files a little later than the answer).
    await eventually(
      () =>
        stores.map((store) =>
          /(\/reset|a \/reset in another process): stopped assetConnections\[0\]/.test(
            readFileSync(store.logFile, "utf8"),
          ),
        ),
      (stopped) => stopped.every(Boolean),
      "each replica's log line of stopping the connection",
    );
  });
});
