/**
 * Asset connections in distributed mode, black-box: redis-server, nats-server, two model-store
 * replicas and an http-gateway as real processes, one config file for all. Exactly one replica runs
 * the connection (polls, forwards writes); when it is killed with SIGKILL, the other takes over
 * within about the lease time (5 s), and an invocation works on whichever replica executes it.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { type AssetFleet, startAssetFleet } from "./test-support/asset-fleet.ts";
import { DRIVE_SUBMODEL_ID, type HttpAsset, startHttpAsset } from "./test-support/asset-peers.ts";
import { eventually } from "./test-support/eventually.ts";
import { b64, type HttpClient } from "./test-support/http-client.ts";
import { type RunningServer, startNats, startRedis } from "./test-support/servers.ts";
import type { TwinportProcess } from "./test-support/system.ts";

const key = (idShort: string, type = "Property") => `(Submodel)${DRIVE_SUBMODEL_ID}, (${type})${idShort}`;
const element = (idShortPath: string) => `/submodels/${b64(DRIVE_SUBMODEL_ID)}/submodel-elements/${idShortPath}`;
const LEASE_LINE = /assetConnections\[0\]: holds the lease/;

let redis: RunningServer;
let nats: RunningServer;
let asset: HttpAsset;
let fleet: AssetFleet;
let stores: TwinportProcess[] = [];
let client: HttpClient;

const holds = (process: TwinportProcess) => LEASE_LINE.test(readFileSync(process.logFile, "utf8"));

const temperature = async () => (await client.get(`${element("Temperature")}/$value`)).json().Temperature as number;

before(async () => {
  [redis, nats, asset] = await Promise.all([startRedis(), startNats(), startHttpAsset()]);
  asset.documents.set("/status", { temperature: 20 });
  asset.documents.set("/setpoint", 1);
  asset.handle = (request) =>
    request.method === "POST" && request.path === "/calibrate"
      ? { status: 200, body: JSON.stringify({ deviation: JSON.parse(request.body).offset * 2 }) }
      : undefined;
  fleet = await startAssetFleet({
    name: "asset",
    redisUrl: redis.url,
    natsUrl: nats.url,
    assetConnection: {
      "@class": "assetconnection.http.HttpAssetConnection",
      baseUrl: asset.url,
      subscriptionProviders: {
        [key("Temperature")]: { format: "JSON", path: "/status", query: "$.temperature", interval: 100 },
      },
      valueProviders: { [key("Setpoint")]: { format: "JSON", path: "/setpoint", readInterval: 200 } },
      operationProviders: {
        [key("Calibrate", "Operation")]: {
          format: "JSON",
          path: "/calibrate",
          template: '{"offset": ${Offset}}',
          queries: { Deviation: "$.deviation" },
        },
      },
    },
  });
  stores = fleet.stores;
  client = fleet.client;
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

test("one replica runs the connection: values flow in, a write reaches the asset once", async () => {
  await eventually(temperature, (t) => t === 20, "the polled temperature through the gateway");
  await eventually(
    () => stores.filter(holds).length,
    (n) => n === 1,
    "one lease holder",
  );
  assert.equal(stores.filter(holds).length, 1);
  const patched = await client.request("PATCH", `${element("Setpoint")}/$value`, { body: "8" });
  assert.equal(patched.status, 204, patched.text);
  await asset.waitForRequest((r) => r.method === "PUT" && r.path === "/setpoint");
  await new Promise((resolve) => setTimeout(resolve, 800));
  assert.equal(asset.requests.filter((r) => r.method === "PUT").length, 1, "forwarded by one replica only");
});

test("kill -9 of the replica running the connection: the other takes over within about the lease time", async () => {
  const holder = stores.find(holds)!;
  const survivor = stores.find((p) => p !== holder)!;
  holder.child.kill("SIGKILL");
  const killedAt = Date.now();
  await eventually(() => holds(survivor), Boolean, "the survivor taking the lease", 12_000);
  const takeover = Date.now() - killedAt;
  assert.ok(takeover < 8000, `took over after ${takeover} ms (lease 5 s)`);
  asset.documents.set("/status", { temperature: 31 });
  await eventually(temperature, (t) => t === 31, "a new asset value through the gateway after the failover");
  const response = await client.request("POST", `${element("Calibrate")}/invoke`, {
    body: JSON.stringify({
      inputArguments: [{ value: { modelType: "Property", idShort: "Offset", valueType: "xs:double", value: "1.25" } }],
    }),
  });
  assert.equal(response.status, 200, response.text);
  assert.equal(response.json().executionState, "Completed", response.text);
  assert.equal(response.json().outputArguments[0].value.value, "2.5");
});
