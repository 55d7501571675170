/**
 * /reset removes the configured asset connections, embedded mode, black-box: the `twinport` process
 * with a config file naming a local HTTP asset (the steps in test-support/asset-reset-scenario.ts).
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
import { freePort } from "./test-support/servers.ts";
import { findCertificate, startTwinport, type TwinportProcess } from "./test-support/system.ts";

let asset: HttpAsset;
let twinport: TwinportProcess;
let client: HttpClient;
const dir = mkdtempSync(join(tmpdir(), "twinport-asset-reset-embedded-"));

before(async () => {
  asset = await startHttpAsset();
  prepareResetAsset(asset);
  const httpPort = await freePort();
  writeFileSync(join(dir, "model.json"), JSON.stringify(ASSET_TEST_MODEL));
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      core: { assetConnectionRetryInterval: 200 },
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: true }],
      assetConnections: [resetAssetConnection(asset)],
    }),
  );
  twinport = await startTwinport({ role: "embedded", cwd: dir, args: ["-c", "config.json", "-m", "model.json"] });
  client = createHttpClient(`https://127.0.0.1:${httpPort}/api/v3.0`, { ca: findCertificate(dir) });
});

after(async () => {
  client?.close();
  await twinport?.stop();
  await asset?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("after /reset and /import of the same model, the configured connection is gone: no provider reads, writes or runs the Operation", async () => {
  await resetRemovesAssetConnections(client, asset, async () => {
    // Log lines reach the file a little later than the answer.
    await eventually(
      () => readFileSync(twinport.logFile, "utf8"),
      (log) => /\/reset: stopped assetConnections\[0\]/.test(log),
      "the log line of stopping the connection",
    );
  });
});
