import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { ChangeEvent, MqttPublishingConfig } from "@twinport/shared";
import { connectAsync, type MqttClient } from "mqtt";
import { freePort, type RunningMosquitto, startMosquitto } from "../../../../tests/test-support/servers.ts";
import { mqttPublishingTarget } from "./mqtt-publishing-options.ts";
import { createOrderedPublisher } from "./ordered-publisher.ts";

const config = (port: number): MqttPublishingConfig => ({
  host: "127.0.0.1",
  port,
  sslPort: 8883,
  useWebsocket: false,
  websocketPort: 9001,
  sslWebsocketPort: 443,
  clientId: "ordered-publisher-test",
  topicPrefix: "unit/",
  qos: 1,
  retainValues: false,
  protocolVersion: 5,
  maxBufferedEvents: 100,
});

const event = (seq: number): ChangeEvent => ({
  seq,
  revision: seq,
  kind: "element.value-changed",
  id: "urn:sm",
  idShortPath: "P",
  payload: { modelType: "Property", idShort: "P", valueType: "xs:int", value: String(seq) },
  time: new Date().toISOString(),
});

let broker: RunningMosquitto;
let port: number;
let consumer: MqttClient;
const data = mkdtempSync(join(tmpdir(), "twinport-ordered-publisher-"));
const received: number[] = [];

before(async () => {
  port = await freePort();
  broker = await startMosquitto({ port, persistenceDir: data });
  consumer = await connectAsync(broker.url, { clientId: "unit-consumer", clean: false, reconnectPeriod: 100 });
  consumer.on("message", (_topic, payload) => received.push(JSON.parse(payload.toString()).newValue.value));
  await consumer.subscribeAsync("unit/#", { qos: 1 });
});

after(async () => {
  await consumer?.endAsync(true);
  await broker?.stop();
  rmSync(data, { recursive: true, force: true });
});

const until = async (check: () => boolean, what: () => string, ms = 15_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(what());
    await new Promise((r) => setTimeout(r, 20));
  }
};

test("acknowledgements are reported in seq order, across a broker restart, for every event", async () => {
  const acks: number[] = [];
  const logs: string[] = [];
  const publisher = createOrderedPublisher({
    config: config(port),
    target: await mqttPublishingTarget(config(port)),
    log: (line) => logs.push(line),
    onAcked: (seq) => acks.push(seq),
    retryMs: 250,
  });
  try {
    for (let seq = 1; seq <= 5; seq++) publisher.push(event(seq));
    await until(
      () => acks.at(-1) === 5,
      () => `acks ${acks}; ${logs}`,
    );
    await broker.stop();
    // As commits come in while the broker is away: one by one, the publisher noticing the loss in between.
    for (let seq = 6; seq <= 10; seq++) {
      publisher.push(event(seq));
      await new Promise((r) => setTimeout(r, 30));
    }
    broker = await startMosquitto({ port, persistenceDir: data });
    await until(
      () => acks.at(-1) === 10,
      () => `acks after the restart: ${acks}; ${logs.join(" | ")}`,
    );
    await until(
      () => received.length >= 10,
      () => `received ${received}`,
    );
    // mosquitto itself may deliver again what it had in flight to the consumer when it stopped.
    assert.deepEqual([...new Set(received)], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (let i = 1; i < received.length; i++)
      assert.ok(received[i]! > received[i - 1]! || received.indexOf(received[i]!) < i, `in order: ${received}`);
    for (let i = 1; i < acks.length; i++) assert.ok(acks[i]! > acks[i - 1]!, `acks ascend: ${acks}`);
    assert.equal(publisher.pending(), 0);
  } finally {
    await publisher.close();
  }
});

test("FA³ST's useWebsocket: ws://host:websocketPort", async () => {
  const websocketPort = await freePort();
  const wsBroker = await startMosquitto({ websocketPort });
  const wsConsumer = await connectAsync(wsBroker.url, { clientId: "ws-consumer" });
  const got: number[] = [];
  wsConsumer.on("message", (_topic, payload) => got.push(JSON.parse(payload.toString()).newValue.value));
  await wsConsumer.subscribeAsync("unit/#", { qos: 1 });
  const settings = { ...config(port), useWebsocket: true, websocketPort };
  const target = await mqttPublishingTarget(settings);
  assert.equal(target.display, `ws://127.0.0.1:${websocketPort}/`);
  const publisher = createOrderedPublisher({ config: settings, target, log: () => {} });
  try {
    publisher.push(event(1));
    publisher.push(event(2));
    await until(
      () => got.length >= 2,
      () => `over WebSocket: ${got}`,
    );
    assert.deepEqual(got, [1, 2]);
  } finally {
    await publisher.close();
    await wsConsumer.endAsync(true);
    await wsBroker.stop();
  }
});

test("retainValues: value changes are retained, so a new subscriber gets the latest at once; other events are not", async () => {
  const settings = { ...config(port), clientId: "retain-test", topicPrefix: "retained/", retainValues: true };
  const acks: number[] = [];
  const publisher = createOrderedPublisher({
    config: settings,
    target: await mqttPublishingTarget(settings),
    log: () => {},
    onAcked: (seq) => acks.push(seq),
  });
  try {
    publisher.push(event(1));
    publisher.push({ ...event(2), kind: "element.updated" });
    await until(
      () => acks.at(-1) === 2,
      () => `acks ${acks}`,
    );
    const late = await connectAsync(broker.url, { clientId: "late-consumer" });
    const got: { topic: string; retain: boolean }[] = [];
    late.on("message", (topic, _payload, packet) => got.push({ topic, retain: packet.retain }));
    await late.subscribeAsync("retained/#", { qos: 1 });
    await new Promise((r) => setTimeout(r, 300));
    await late.endAsync(true);
    assert.deepEqual(got, [{ topic: "retained/ValueChangeEventMessage", retain: true }]);
  } finally {
    await publisher.close();
  }
});
