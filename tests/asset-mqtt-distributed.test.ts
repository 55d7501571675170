/**
 * MQTT asset connections in distributed mode, black-box: redis-server, nats-server, mosquitto, two
 * model-store replicas and an http-gateway as real processes, one config file for all. Exactly one
 * replica holds the connection's lease: it alone has a session on the broker, takes the messages
 * and publishes each write once. Killed with SIGKILL, the other takes over within about the lease
 * time (5 s).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { connectAsync, type MqttClient } from "mqtt";
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
const LEASE_LINE = /assetConnections\[0\]: holds the lease/;

let redis: RunningServer;
let nats: RunningServer;
let broker: RunningMosquitto;
let device: MqttClient;
let stores: TwinportProcess[] = [];
let gateway: TwinportProcess;
let client: HttpClient;
const published: string[] = [];
const dirs: string[] = [];

function workDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `twinport-mqtt-${name}-`));
  dirs.push(dir);
  return dir;
}

const holds = (process: TwinportProcess) => LEASE_LINE.test(readFileSync(process.logFile, "utf8"));

const temperature = async () => (await client.get(`${element("Temperature")}/$value`)).json().Temperature as number;

/** Publishes the temperature until the gateway shows it (the holder subscribes a moment after it connects). */
const publishUntilVisible = (value: number, timeoutMs = 10_000) =>
  eventually(
    async () => {
      await device.publishAsync("drive/telemetry", JSON.stringify({ temperature: value }), { qos: 1 });
      return temperature();
    },
    (t) => t === value,
    `${value} through the gateway`,
    timeoutMs,
  );

/** Clients of our replicas connected to the broker now (the test's own device excluded), from the broker's log. */
function replicaSessions(): number {
  const sessions = new Set<string>();
  for (const line of readFileSync(broker.logFile, "utf8").split("\n")) {
    const connected = /New client connected from \S+ as (\S+)/.exec(line);
    if (connected && connected[1] !== "test-device") sessions.add(connected[1]!);
    const gone = /Client (\S+) (?:disconnected|closed its connection)/.exec(line);
    if (gone) sessions.delete(gone[1]!);
  }
  return sessions.size;
}

before(async () => {
  [redis, nats, broker] = await Promise.all([startRedis(), startNats(), startMosquitto()]);
  device = await connectAsync(broker.url, { reconnectPeriod: 0, clientId: "test-device" });
  device.on("message", (topic, payload) => {
    if (topic === "drive/setpoint/set") published.push(payload.toString());
  });
  await device.subscribeAsync("drive/setpoint/set", { qos: 1 });
  const httpPort = await freePort();
  const config = JSON.stringify({
    core: { assetConnectionRetryInterval: 200 },
    persistence: { "@class": "persistence.redis.PersistenceRedis", url: redis.url },
    messageBus: { "@class": "messagebus.nats.MessageBusNats", url: nats.url },
    endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: true }],
    assetConnections: [
      {
        "@class": "assetconnection.mqtt.MqttAssetConnection",
        serverUri: broker.url,
        subscriptionProviders: {
          [key("Temperature")]: { format: "JSON", topic: "drive/telemetry", query: "$.temperature" },
        },
        valueProviders: { [key("Setpoint")]: { format: "JSON", topic: "drive/setpoint/set" } },
      },
    ],
  });
  const start = (role: "model-store" | "http-gateway", args: string[] = []) => {
    const cwd = workDir(role);
    writeFileSync(join(cwd, "config.json"), config);
    writeFileSync(join(cwd, "model.json"), JSON.stringify(ASSET_TEST_MODEL));
    return startTwinport({ role, cwd, args: ["-c", "config.json", ...args] });
  };
  stores = await Promise.all([start("model-store", ["-m", "model.json"]), start("model-store", ["-m", "model.json"])]);
  gateway = await start("http-gateway");
  client = createHttpClient(`https://127.0.0.1:${httpPort}/api/v3.0`, { ca: findCertificate(dirs.at(-1)!) });
});

after(async () => {
  client?.close();
  await Promise.all([...stores, gateway].filter(Boolean).map((p) => p.stop()));
  await device?.endAsync();
  await broker?.stop();
  await nats?.stop();
  await redis?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test("one replica runs the connection: one broker session, messages flow in, each write is published once", async () => {
  await eventually(
    () => stores.filter(holds).length,
    (n) => n === 1,
    "one lease holder",
  );
  await publishUntilVisible(20);
  assert.equal(
    replicaSessions(),
    1,
    `one session of our replicas on the broker; broker log:\n${readFileSync(broker.logFile, "utf8")}`,
  );
  const patched = await client.request("PATCH", `${element("Setpoint")}/$value`, { body: "8" });
  assert.equal(patched.status, 204, patched.text);
  await eventually(
    () => published.length,
    (n) => n > 0,
    "the published setpoint",
  );
  await new Promise((resolve) => setTimeout(resolve, 800));
  assert.deepEqual(published, ["8"], "published by one replica only");
});

test("kill -9 of the replica running the connection: the other takes over within about the lease time; a write made meanwhile is published once its session is up, without a failed try", async () => {
  const holder = stores.find(holds)!;
  const survivor = stores.find((p) => p !== holder)!;
  holder.child.kill("SIGKILL");
  const killedAt = Date.now();
  // Until NATS has seen the connection go, a command routed to the dead replica would time out.
  await new Promise((resolve) => setTimeout(resolve, 500));
  // Committed while no replica holds the lease: the survivor's catch-up publishes it (ADR 0059).
  const meanwhile = await client.request("PATCH", `${element("Setpoint")}/$value`, { body: "9" });
  assert.equal(meanwhile.status, 204, meanwhile.text);
  assert.equal(holds(survivor), false, "the survivor took the lease only now");
  await eventually(() => holds(survivor), Boolean, "the survivor taking the lease", 12_000);
  const takeover = Date.now() - killedAt;
  assert.ok(takeover < 8000, `took over after ${takeover} ms (lease 5 s)`);
  await eventually(
    () => published.length,
    (n) => n > 1,
    "the write made meanwhile, published by the survivor",
  );
  await publishUntilVisible(31);
  await eventually(replicaSessions, (n) => n === 1, "one session of our replicas on the broker after the failover");
  const patched = await client.request("PATCH", `${element("Setpoint")}/$value`, { body: "10" });
  assert.equal(patched.status, 204, patched.text);
  await eventually(
    () => published.length,
    (n) => n > 2,
    "the setpoint published by the survivor",
  );
  await new Promise((resolve) => setTimeout(resolve, 800));
  assert.deepEqual(published, ["8", "9", "10"]);
  // The catch-up write waited for the session instead of failing once before it (an ordinary takeover).
  const failed = readFileSync(survivor.logFile, "utf8")
    .split("\n")
    .filter((line) => line.includes("to the asset failed"));
  assert.deepEqual(failed, [], "no failed write in the survivor's log");
});
