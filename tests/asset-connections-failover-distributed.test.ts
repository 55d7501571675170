/**
 * A write made while no replica runs the asset connection, black-box: redis-server, nats-server,
 * two model-store replicas, an http-gateway and an HTTP asset as real processes. The replica holding
 * the connection's lease is killed with SIGKILL; before the other takes the lease over, a client
 * writes a bound element (204). The new holder must write that value to the asset before it reads
 * the asset, so the asset's older value does not overwrite the client's acknowledged write
 * (docs/adr/0059-lease-holders-catch-up-on-writes.md).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ASSET_TEST_MODEL, DRIVE_SUBMODEL_ID, type HttpAsset, startHttpAsset } from "./test-support/asset-peers.ts";
import { eventually } from "./test-support/eventually.ts";
import { b64, createHttpClient, type HttpClient } from "./test-support/http-client.ts";
import { type RunningServer, startNats, startRedis } from "./test-support/servers.ts";
import { findCertificate, startTwinport, type TwinportProcess } from "./test-support/system.ts";

/** Fixed ports of this test's own range, so it never meets another test's servers. */
const PORTS = { redis: 21401, nats: 21402, natsMonitor: 21403, asset: 21404, http: 21405 };

const key = (idShort: string) => `(Submodel)${DRIVE_SUBMODEL_ID}, (Property)${idShort}`;
const element = (idShortPath: string) => `/submodels/${b64(DRIVE_SUBMODEL_ID)}/submodel-elements/${idShortPath}`;
const LEASE_LINE = /assetConnections\[0\]: holds the lease/;

let redis: RunningServer;
let nats: RunningServer;
let asset: HttpAsset;
let stores: TwinportProcess[] = [];
let gateway: TwinportProcess;
let client: HttpClient;
const dirs: string[] = [];

const holds = (process: TwinportProcess) => LEASE_LINE.test(readFileSync(process.logFile, "utf8"));
const setpoint = async () => (await client.get(`${element("Setpoint")}/$value`)).json().Setpoint as number;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

before(async () => {
  [redis, nats, asset] = await Promise.all([
    startRedis({ port: PORTS.redis }),
    startNats({ port: PORTS.nats, monitorPort: PORTS.natsMonitor }),
    startHttpAsset({ port: PORTS.asset }),
  ]);
  asset.documents.set("/setpoint", 1);
  const config = JSON.stringify({
    core: { assetConnectionRetryInterval: 200, managementPort: -1 },
    persistence: { "@class": "persistence.redis.PersistenceRedis", url: redis.url },
    messageBus: { "@class": "messagebus.nats.MessageBusNats", url: nats.url },
    endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: PORTS.http, host: "127.0.0.1", sslEnabled: true }],
    assetConnections: [
      {
        "@class": "assetconnection.http.HttpAssetConnection",
        baseUrl: asset.url,
        valueProviders: { [key("Setpoint")]: { format: "JSON", path: "/setpoint", readInterval: 200 } },
      },
    ],
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
  client = createHttpClient(`https://127.0.0.1:${PORTS.http}/api/v3.0`, { ca: findCertificate(dirs.at(-1)!) });
});

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

test("a write committed while no replica holds the lease reaches the asset, and the model keeps it", async () => {
  await eventually(
    () => stores.filter(holds).length,
    (n) => n === 1,
    "one lease holder",
  );
  // A write the holder forwards itself, then time for it to record how far it got (every third of the lease).
  assert.equal((await client.request("PATCH", `${element("Setpoint")}/$value`, { body: "7" })).status, 204);
  await asset.waitForRequest((r) => r.method === "PUT" && r.path === "/setpoint" && r.body === "7");
  await sleep(2500);

  const holder = stores.find(holds)!;
  const survivor = stores.find((p) => p !== holder)!;
  holder.child.kill("SIGKILL");
  // Until NATS has seen the connection go, a command routed to the dead replica would time out (504).
  await sleep(500);
  // The device changes nothing by itself: it still has 7 when the survivor takes over.
  const patched = await client.request("PATCH", `${element("Setpoint")}/$value`, { body: "42" });
  assert.equal(patched.status, 204, patched.text);
  assert.equal(holds(survivor), false, "written before the survivor took the lease");

  await eventually(() => holds(survivor), Boolean, "the survivor taking the lease", 12_000);
  await asset.waitForRequest((r) => r.method === "PUT" && r.path === "/setpoint" && r.body === "42", 10_000);
  // Several read intervals of the new holder: the model keeps the client's value, as does the asset.
  await sleep(1500);
  assert.equal(await setpoint(), 42, "the acknowledged write survived the failover");
  assert.equal(asset.documents.get("/setpoint"), 42);
  assert.equal(
    asset.requests.filter((r) => r.method === "PUT" && r.body === "42").length,
    1,
    "written once by the new holder",
  );
});
