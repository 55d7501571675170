/**
 * /reset removes the configured asset connections, several embedded processes on one Redis,
 * black-box: two `twinport` processes with the same HTTP asset connection. The reset runs in the
 * first; the second, whose own engine executes the invocations sent to it, has dropped its
 * operation provider when /reset answers (test-support/asset-reset-scenario.ts).
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
import { freePort, type RunningServer, startRedis } from "./test-support/servers.ts";
import { findCertificate, startTwinport, type TwinportProcess } from "./test-support/system.ts";

let redis: RunningServer;
let asset: HttpAsset;
let processes: TwinportProcess[] = [];
let clients: HttpClient[] = [];
const dirs: string[] = [];

before(async () => {
  [redis, asset] = await Promise.all([startRedis(), startHttpAsset()]);
  prepareResetAsset(asset);
  const start = async () => {
    const cwd = mkdtempSync(join(tmpdir(), "twinport-asset-reset-embedded-redis-"));
    dirs.push(cwd);
    const httpPort = await freePort();
    writeFileSync(join(cwd, "model.json"), JSON.stringify(ASSET_TEST_MODEL));
    writeFileSync(
      join(cwd, "config.json"),
      JSON.stringify({
        core: { assetConnectionRetryInterval: 200 },
        persistence: { "@class": "persistence.redis.PersistenceRedis", url: redis.url },
        endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: true }],
        assetConnections: [resetAssetConnection(asset)],
      }),
    );
    const process = await startTwinport({ role: "embedded", cwd, args: ["-c", "config.json", "-m", "model.json"] });
    return {
      process,
      client: createHttpClient(`https://127.0.0.1:${httpPort}/api/v3.0`, { ca: findCertificate(cwd) }),
    };
  };
  // One after the other: the first seeds the model, the second finds it.
  const first = await start();
  const second = await start();
  processes = [first.process, second.process];
  clients = [first.client, second.client];
});

after(
  async () => {
    for (const client of clients) client.close();
    await Promise.all(processes.map((p) => p.stop()));
    await asset?.stop();
    await redis?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  },
  { timeout: 30_000 },
);

test("a /reset in one process removes the configured connection in the other too: its invocations find no provider", async () => {
  await resetRemovesAssetConnections(
    clients[0]!,
    asset,
    async () => {
      await eventually(
        () =>
          processes.map((p) =>
            /(\/reset|a \/reset in another process): stopped assetConnections\[0\]/.test(
              readFileSync(p.logFile, "utf8"),
            ),
          ),
        (stopped) => stopped.every(Boolean),
        "each process's log line of stopping the connection",
      );
    },
    clients[1]!,
  );
});
