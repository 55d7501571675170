/**
 * MQTT asset connections in embedded mode, black-box: the `twinport` process started with a config
 * file naming a real mosquitto broker (and a second broker nobody runs); the test acts as the
 * device on the broker and reads and writes through HTTPS and the process's own OPC UA endpoint.
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
import { connectOpcua, type OpcuaTestClient } from "./test-support/opcua-client.ts";
import { freePort, type RunningMosquitto, startMosquitto } from "./test-support/servers.ts";
import { findCertificate, startTwinport, type TwinportProcess } from "./test-support/system.ts";

const FAAAST = "de.fraunhofer.iosb.ilt.faaast.service";
const key = (idShort: string) => `(Submodel)${DRIVE_SUBMODEL_ID}, (Property)${idShort}`;
const element = (idShortPath: string) => `/submodels/${b64(DRIVE_SUBMODEL_ID)}/submodel-elements/${idShortPath}`;

let broker: RunningMosquitto;
let device: MqttClient;
let twinport: TwinportProcess;
let client: HttpClient;
let opcua: OpcuaTestClient;
const dir = mkdtempSync(join(tmpdir(), "twinport-mqtt-embedded-"));

before(async () => {
  broker = await startMosquitto();
  device = await connectAsync(broker.url, { reconnectPeriod: 0, clientId: "test-device" });
  const [httpPort, opcuaPort, nobodyPort] = [await freePort(), await freePort(), await freePort()];
  writeFileSync(join(dir, "model.json"), JSON.stringify(ASSET_TEST_MODEL));
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      core: { assetConnectionRetryInterval: 200 },
      endpoints: [
        { "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: true },
        {
          "@class": "endpoint.opcua.OpcUaEndpoint",
          tcpPort: opcuaPort,
          host: "127.0.0.1",
          supportedSecurityPolicies: ["NONE"],
          secondsTillShutdown: 0,
        },
      ],
      assetConnections: [
        {
          "@class": `${FAAAST}.assetconnection.mqtt.MqttAssetConnection`,
          serverUri: `tcp://127.0.0.1:${broker.port}`,
          clientId: "twinport-embedded",
          subscriptionProviders: {
            [key("Temperature")]: { format: "JSON", topic: "drive/telemetry", query: "$.temperature" },
            [key("Label")]: { format: "JSON", topic: "drive/telemetry", query: "$.label" },
          },
          valueProviders: {
            [key("Setpoint")]: { format: "JSON", topic: "drive/setpoint/set", template: '{"setpoint": ${value}}' },
          },
        },
        // Nobody listens here: start-up must not wait for it.
        {
          "@class": `${FAAAST}.assetconnection.mqtt.MqttAssetConnection`,
          serverUri: `tcp://127.0.0.1:${nobodyPort}`,
          subscriptionProviders: { [key("BigCounter")]: { format: "JSON", topic: "x" } },
        },
      ],
    }),
  );
  twinport = await startTwinport({ role: "embedded", cwd: dir, args: ["-c", "config.json", "-m", "model.json"] });
  client = createHttpClient(`https://127.0.0.1:${httpPort}/api/v3.0`, { ca: findCertificate(dir) });
  opcua = await connectOpcua(`opc.tcp://127.0.0.1:${opcuaPort}`, dir);
});

after(async () => {
  client?.close();
  await opcua?.close().catch(() => undefined);
  await twinport?.stop();
  await device?.endAsync();
  await broker?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("ready although one broker is unreachable; both MQTT connections are named in the ready line", async () => {
  assert.deepEqual(
    (twinport.details.assetConnections as { name: string; kind: string }[]).map((c) => `${c.name} ${c.kind}`),
    ["assetConnections[0] mqtt", "assetConnections[1] mqtt"],
  );
  await eventually(
    async () => readFileSync(twinport.logFile, "utf8"),
    (log) => /assetConnections\[1\].*cannot connect to tcp:\/\/127\.0\.0\.1/.test(log),
    "the retry in the log",
  );
  assert.equal((await client.get(element("Temperature"))).status, 200, "requests are served meanwhile");
});

test("a message published on the broker reaches HTTP readers and an OPC UA subscription", async () => {
  const monitor = await opcua.monitor(`${DRIVE_SUBMODEL_ID}|Temperature/Value`);
  try {
    // Published until it arrives: the connection subscribes a moment after the process is ready.
    await eventually(
      async () => {
        await device.publishAsync("drive/telemetry", JSON.stringify({ temperature: 21.5, label: "milling" }), {
          qos: 1,
        });
        return client.get(`${element("Temperature")}/$value`);
      },
      (r) => r.status === 200 && r.json().Temperature === 21.5,
      "21.5 over HTTP",
    );
    assert.equal(
      (await client.get(`${element("Label")}/$value`)).json().Label,
      "milling",
      "the second provider on the same topic",
    );
    await monitor.waitFor((v) => v.value.value === 21.5, 10_000, "21.5 in the OPC UA subscription");
    await device.publishAsync("drive/telemetry", JSON.stringify({ temperature: 19.75, label: "idle" }), { qos: 1 });
    await monitor.waitFor((v) => v.value.value === 19.75, 10_000, "19.75 in the OPC UA subscription");
    assert.equal((await opcua.read(`${DRIVE_SUBMODEL_ID}|Label/Value`)).value.value, "idle");
    assert.equal((await client.get(`${element("Temperature")}/$value`)).json().Temperature, 19.75);
  } finally {
    await monitor.stop();
  }
});

test("HTTP PATCH $value is published to the broker with the template; a GET answers the stored value", async () => {
  const received: string[] = [];
  device.on("message", (topic, payload) => {
    if (topic === "drive/setpoint/set") received.push(payload.toString());
  });
  await device.subscribeAsync("drive/setpoint/set", { qos: 1 });
  const patched = await client.request("PATCH", `${element("Setpoint")}/$value`, { body: "17" });
  assert.equal(patched.status, 204, patched.text);
  await eventually(
    async () => received.length,
    (n) => n > 0,
    "the published setpoint",
  );
  assert.deepEqual(received, ['{"setpoint": 17}']);
  const read = await client.get(`${element("Setpoint")}/$value`);
  assert.equal(
    read.status,
    200,
    "a write-only MQTT value provider never fails a read (FA³ST v1.3.0 answered an error)",
  );
  assert.equal(read.json().Setpoint, 17);
  const written = await opcua.write(`${DRIVE_SUBMODEL_ID}|Setpoint/Value`, { dataType: "Int32", value: 23 });
  assert.ok(written.isGood(), written.toString());
  await eventually(
    async () => received.length,
    (n) => n > 1,
    "the setpoint written through OPC UA",
  );
  assert.equal(received[1], '{"setpoint": 23}');
});
