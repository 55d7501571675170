import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, beforeEach, describe, test } from "node:test";
import { connectAsync, type MqttClient } from "mqtt";
import { ASSET_TEST_MODEL, DRIVE_SUBMODEL_ID } from "../../../../tests/support/asset-peers.ts";
import { freePort, startMosquitto, type RunningMosquitto } from "../../../../tests/support/servers.ts";
import { startAssetConnections, type RunningAssetConnections } from "./start-asset-connections.ts";
import { assetConnectionsConfig, startTestStore, until, type TestStore } from "./test-support.ts";

const MQTT = "de.fraunhofer.iosb.ilt.faaast.service.assetconnection.mqtt.MqttAssetConnection";
const key = (...path: string[]) => [`(Submodel)${DRIVE_SUBMODEL_ID}`, ...path].join(", ");
const lines: string[] = [];
const dir = mkdtempSync(join(tmpdir(), "twinport-mqtt-asset-"));

let broker: RunningMosquitto;
let device: MqttClient;
let sut: TestStore;
let connections: RunningAssetConnections | undefined;

async function start(...configs: unknown[]): Promise<RunningAssetConnections> {
  connections = await startAssetConnections({
    connections: assetConnectionsConfig(...configs),
    store: sut.store,
    bus: sut.bus,
    operationProviders: sut.registry,
    retryIntervalMs: 100,
    readTimeoutMs: 2000,
    log: (line) => void lines.push(line),
  });
  return connections;
}

const patchValue = (idShortPath: string, body: unknown) =>
  sut.store.execute({ type: "PatchSubmodelElementValueByPath", params: { submodelId: DRIVE_SUBMODEL_ID, idShortPath, body: JSON.stringify(body) }, origin: "http" });

/** The test's own client on the broker, acting as the device. */
async function deviceClient(url: string, options: Parameters<typeof connectAsync>[1] = {}): Promise<MqttClient> {
  return connectAsync(url, { reconnectPeriod: 0, clientId: `test-device-${Math.random().toString(16).slice(2)}`, ...options });
}

/** Messages the device receives on `filter`, collected from now on. */
async function collect(client: MqttClient, filter: string): Promise<{ topic: string; payload: string; qos: number; retain: boolean }[]> {
  const received: { topic: string; payload: string; qos: number; retain: boolean }[] = [];
  client.on("message", (topic, payload, packet) => received.push({ topic, payload: payload.toString(), qos: packet.qos, retain: packet.retain }));
  await client.subscribeAsync(filter, { qos: 1 });
  return received;
}

const status = () => connections!.status()[0]!;
const connected = () => until(() => status().state === "connected", "the connection to be connected");

/**
 * Publishes until the element shows the value: a subscription becomes active a moment after the
 * connection (its SUBACK), and QoS 1 without a session does not keep messages sent before it.
 */
async function publishUntil(topic: string, payload: string, idShortPath: string, check: (value: unknown) => boolean): Promise<void> {
  const deadline = Date.now() + 8000;
  while (Date.now() < deadline) {
    await device.publishAsync(topic, payload, { qos: 1 });
    const element = await sut.element(DRIVE_SUBMODEL_ID, idShortPath);
    if (check(element.value)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`${idShortPath} did not take ${payload} from ${topic}; log:\n${lines.join("\n")}`);
}

before(async () => {
  broker = await startMosquitto();
  device = await deviceClient(broker.url);
});
after(async () => {
  await connections?.stop();
  await sut?.close();
  await device?.endAsync();
  await broker?.stop();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  sut = await startTestStore(ASSET_TEST_MODEL);
  lines.length = 0;
});
afterEach(async () => {
  await connections?.stop();
  connections = undefined;
  await sut.close();
});

describe("MQTT subscription provider", () => {
  test("a message's value, selected by the query, reaches the model as one value-changed event with origin asset", async () => {
    await start({
      "@class": MQTT,
      serverUri: broker.url.replace("mqtt://", "tcp://"),
      subscriptionProviders: { [key("(Property)Temperature")]: { format: "JSON", topic: "plant/drive/status", query: "$.temperature.value" } },
    });
    await connected();
    await publishUntil("plant/drive/status", JSON.stringify({ temperature: { value: 21.5 } }), "Temperature", (v) => v === "21.5");
    const fromAsset = () => sut.events.filter((e) => e.origin === "asset" && e.idShortPath === "Temperature");
    // The same value again: no further event (ADR 0008; FA³ST v1.3.0 made one per message).
    await device.publishAsync("plant/drive/status", JSON.stringify({ temperature: { value: 21.5 } }), { qos: 1 });
    await device.publishAsync("plant/drive/status", JSON.stringify({ temperature: { value: 22.25 } }), { qos: 1 });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Temperature", (e) => e.value === "22.25");
    assert.deepEqual(
      fromAsset().map((e) => e.kind),
      ["element.value-changed", "element.value-changed"],
    );
    assert.equal(status().kind, "mqtt");
    assert.equal(status().endpoint, broker.url.replace("mqtt://", "tcp://"));
  });
});
