/**
 * An MQTT asset connection's lease taken over in embedded mode, black-box: two `twinport` processes
 * on one redis-server and one nats-server (they share the connection leases like model-store
 * replicas) and a real mosquitto broker. A write made while no process holds the lease is published
 * by the next holder once its broker session is up (docs/adr/0059, amendment 2026-11-28), with no
 * failed try in its log; the distributed set-up is in asset-mqtt-distributed.test.ts.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { connectAsync, type MqttClient } from "mqtt";
import { holdsLease } from "./test-support/asset-failover-scenario.ts";
import { ASSET_TEST_MODEL, DRIVE_SUBMODEL_ID } from "./test-support/asset-peers.ts";
import { eventually } from "./test-support/eventually.ts";
import { b64, createHttpClient, type HttpClient } from "./test-support/http-client.ts";
import {
  freePort,
  type RunningMosquitto,
  type RunningServer,
  startMosquitto,
  startNats,
  startRedis,
} from "./test-support/servers.ts";
import { findCertificate, startTwinport, type TwinportProcess } from "./test-support/system.ts";

const key = (idShort: string) => `(Submodel)${DRIVE_SUBMODEL_ID}, (Property)${idShort}`;
const element = (idShortPath: string) => `/submodels/${b64(DRIVE_SUBMODEL_ID)}/submodel-elements/${idShortPath}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let redis: RunningServer;
let nats: RunningServer;
let broker: RunningMosquitto;
let device: MqttClient;
const processes: TwinportProcess[] = [];
const clients = new Map<TwinportProcess, HttpClient>();
const published: string[] = [];
const dirs: string[] = [];

before(async () => {
  [redis, nats, broker] = await Promise.all([startRedis(), startNats(), startMosquitto()]);
  device = await connectAsync(broker.url, { reconnectPeriod: 0, clientId: "test-device" });
  device.on("message", (topic, payload) => {
    if (topic === "drive/setpoint/set") published.push(payload.toString());
  });
  await device.subscribeAsync("drive/setpoint/set", { qos: 1 });
  const start = async (httpPort: number) => {
    const cwd = mkdtempSync(join(tmpdir(), "twinport-mqtt-failover-embedded-"));
    dirs.push(cwd);
    writeFileSync(join(cwd, "model.json"), JSON.stringify(ASSET_TEST_MODEL));
    writeFileSync(
      join(cwd, "config.json"),
      JSON.stringify({
        core: { assetConnectionRetryInterval: 200, managementPort: -1 },
        persistence: { "@class": "persistence.redis.PersistenceRedis", url: redis.url },
        messageBus: { "@class": "messagebus.nats.MessageBusNats", url: nats.url },
        endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: true }],
        assetConnections: [
          {
            "@class": "assetconnection.mqtt.MqttAssetConnection",
            serverUri: broker.url,
            valueProviders: { [key("Setpoint")]: { format: "JSON", topic: "drive/setpoint/set" } },
          },
        ],
      }),
    );
    const process = await startTwinport({ cwd, args: ["-c", "config.json", "-m", "model.json"] });
    clients.set(process, createHttpClient(`https://127.0.0.1:${httpPort}/api/v3.0`, { ca: findCertificate(cwd) }));
    return process;
  };
  // One after the other: two processes loading the model files into one empty Redis at once clash.
  for (const port of [await freePort(), await freePort()]) processes.push(await start(port));
});

after(async () => {
  for (const client of clients.values()) client.close();
  await Promise.all(processes.map((p) => p.stop()));
  await device?.endAsync();
  await broker?.stop();
  await nats?.stop();
  await redis?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test("kill -9 of the process holding the lease: a write made before the other takes over is published once its session is up, without a failed try", async () => {
  await eventually(
    () => processes.filter(holdsLease).length,
    (n) => n === 1,
    "one lease holder",
  );
  const holder = processes.find(holdsLease)!;
  const survivor = processes.find((p) => p !== holder)!;
  const client = clients.get(survivor)!;
  const first = await client.request("PATCH", `${element("Setpoint")}/$value`, { body: "8" });
  assert.equal(first.status, 204, first.text);
  await eventually(
    () => published.length,
    (n) => n > 0,
    "the setpoint published by the holder",
  );
  // Saved as forwarded once published: the next holder must not publish it again.
  await sleep(300);
  holder.child.kill("SIGKILL");
  // Until NATS has seen the connection go, a command routed to the dead process would time out.
  await sleep(500);
  const meanwhile = await client.request("PATCH", `${element("Setpoint")}/$value`, { body: "9" });
  assert.equal(meanwhile.status, 204, meanwhile.text);
  assert.equal(holdsLease(survivor), false, "the survivor took the lease only now");
  await eventually(() => holdsLease(survivor), Boolean, "the survivor taking the lease", 12_000);
  await eventually(
    () => published.length,
    (n) => n > 1,
    "the write made meanwhile, published by the survivor",
  );
  await sleep(800);
  assert.deepEqual(published, ["8", "9"]);
  const failed = readFileSync(survivor.logFile, "utf8")
    .split("\n")
    .filter((line) => line.includes("to the asset failed"));
  assert.deepEqual(failed, [], "no failed write in the survivor's log");
});
