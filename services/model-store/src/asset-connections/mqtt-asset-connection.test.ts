import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, beforeEach, describe, test } from "node:test";
import { connectAsync, type MqttClient } from "mqtt";
import { ASSET_TEST_MODEL, DRIVE_SUBMODEL_ID } from "../../../../tests/test-support/asset-peers.ts";
import {
  opensslCertificate,
  opensslIssuedCertificate,
  opensslPkcs12,
} from "../../../../tests/test-support/openssl-keystores.ts";
import { freePort, type RunningMosquitto, startMosquitto } from "../../../../tests/test-support/servers.ts";
import { type RunningAssetConnections, startAssetConnections } from "./start-asset-connections.ts";
import { assetConnectionsConfig, startTestStore, type TestStore, until } from "./test-support/asset-connections.ts";

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
  sut.store.execute({
    type: "PatchSubmodelElementValueByPath",
    params: { submodelId: DRIVE_SUBMODEL_ID, idShortPath, body: JSON.stringify(body) },
    origin: "http",
  });

/** The test's own client on the broker, acting as the device. */
async function deviceClient(url: string, options: Parameters<typeof connectAsync>[1] = {}): Promise<MqttClient> {
  return connectAsync(url, {
    reconnectPeriod: 0,
    clientId: `test-device-${Math.random().toString(16).slice(2)}`,
    ...options,
  });
}

/** Messages the device receives on `topic` (no wildcards), collected from now on. */
async function collect(
  client: MqttClient,
  topic: string,
): Promise<{ topic: string; payload: string; qos: number; retain: boolean }[]> {
  const received: { topic: string; payload: string; qos: number; retain: boolean }[] = [];
  client.on("message", (name, payload, packet) => {
    if (name === topic)
      received.push({ topic: name, payload: payload.toString(), qos: packet.qos, retain: packet.retain });
  });
  await client.subscribeAsync(topic, { qos: 1 });
  return received;
}

const status = () => connections!.status()[0]!;
const connected = () => until(() => status().state === "connected", "the connection to be connected");

/**
 * Publishes until the element shows the value: a subscription becomes active a moment after the
 * connection (its SUBACK), and QoS 1 without a session does not keep messages sent before it.
 */
async function publishUntil(
  topic: string,
  payload: string,
  idShortPath: string,
  check: (value: unknown) => boolean,
): Promise<void> {
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
      subscriptionProviders: {
        [key("(Property)Temperature")]: {
          format: "JSON",
          topic: "plant/drive/status",
          query: "$.temperature.value",
        },
      },
    });
    await connected();
    await publishUntil(
      "plant/drive/status",
      JSON.stringify({ temperature: { value: 21.5 } }),
      "Temperature",
      (v) => v === "21.5",
    );
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

describe("MQTT subscription provider under a burst", () => {
  test("a device publishing faster than the store commits: intermediate values are skipped, the last one wins", async () => {
    await start({
      "@class": MQTT,
      serverUri: broker.url,
      subscriptionProviders: {
        [key("(Property)Temperature")]: { format: "JSON", topic: "burst/temperature", query: "$.t" },
      },
    });
    await connected();
    await publishUntil("burst/temperature", JSON.stringify({ t: 0 }), "Temperature", (v) => v === "0");
    const before = sut.events.length;
    const burst = 3000;
    // Fire and forget, all at once: far more messages than the store can commit meanwhile.
    await Promise.all(
      Array.from({ length: burst }, (_, i) =>
        device.publishAsync("burst/temperature", JSON.stringify({ t: i + 1 }), { qos: 1 }),
      ),
    );
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Temperature", (e) => e.value === String(burst), 20_000);
    const written = sut.events
      .slice(before)
      .filter((e) => e.origin === "asset" && e.idShortPath === "Temperature").length;
    // One write per reading would be 3,000 commits; only the newest waiting reading is kept.
    assert.ok(written < burst, `${written} commits for ${burst} messages`);
    // Nothing keeps arriving after the last value: the queue did not hold a backlog.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await sut.element(DRIVE_SUBMODEL_ID, "Temperature")).value, String(burst));
  });
});

describe("MQTT subscription provider, more", () => {
  test("several providers on one topic share one broker subscription; each takes its own query", async () => {
    await start({
      "@class": MQTT,
      serverUri: broker.url,
      clientId: "twinport-shared-topic",
      subscriptionProviders: {
        [key("(Property)Temperature")]: { format: "JSON", topic: "line1/telemetry", query: "$.temperature" },
        [key("(SubmodelElementCollection)Status", "(Property)Mode")]: {
          format: "JSON",
          topic: "line1/telemetry",
          query: "$.mode",
        },
        [key("(SubmodelElementCollection)Status", "(Property)Speed")]: {
          format: "JSON",
          topic: "line1/telemetry",
          query: "$.speed",
        },
      },
    });
    await connected();
    await publishUntil(
      "line1/telemetry",
      JSON.stringify({ temperature: 30.5, mode: "auto", speed: 1200 }),
      "Temperature",
      (v) => v === "30.5",
    );
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Status.Mode", (e) => e.value === "auto");
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Status.Speed", (e) => e.value === "1200");
    const log = readFileSync(broker.logFile, "utf8");
    const subscribes = log
      .split("\n")
      .filter((line) => line.includes("twinport-shared-topic") && line.includes("line1/telemetry"));
    assert.equal(subscribes.length, 1, `one SUBSCRIBE for the topic; broker log:\n${subscribes.join("\n")}`);
  });

  test("a wildcard topic filter: every matching topic feeds the element", async () => {
    await start({
      "@class": MQTT,
      serverUri: broker.url,
      subscriptionProviders: { [key("(Property)Label")]: { format: "JSON", topic: "plant/+/label/#" } },
    });
    await connected();
    await publishUntil("plant/cell1/label/current", JSON.stringify("milling"), "Label", (v) => v === "milling");
    await device.publishAsync("plant/cell2/label", JSON.stringify("turning"), { qos: 1 });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Label", (e) => e.value === "turning");
    await device.publishAsync("plant/cell2/other/label", JSON.stringify("ignored"), { qos: 1 });
    await device.publishAsync("plant/cell3/label/x", JSON.stringify("drilling"), { qos: 1 });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Label", (e) => e.value === "drilling");
    assert.ok(
      !sut.events.some((e) => (e.payload as { value?: string } | undefined)?.value === "ignored"),
      "a topic outside the filter changes nothing",
    );
  });

  test("a message that is not JSON, lacks the queried value or does not fit the type is logged and dropped; the next good one is taken", async () => {
    await start({
      "@class": MQTT,
      serverUri: broker.url,
      subscriptionProviders: {
        [key("(Property)Setpoint")]: { format: "JSON", topic: "drive/setpoint", query: "$.value" },
      },
    });
    await connected();
    await publishUntil("drive/setpoint", '{"value": 5}', "Setpoint", (v) => v === "5");
    await device.publishAsync("drive/setpoint", "not json {", { qos: 1 });
    await until(
      () => lines.some((l) => /a message on "drive\/setpoint" is not JSON/.test(l)),
      "the bad payload in the log",
    );
    assert.equal(status().failingProviders[0]?.idShortPath, "Setpoint");
    await device.publishAsync("drive/setpoint", '{"other": 1}', { qos: 1 });
    await until(
      () => lines.some((l) => /a message on "drive\/setpoint": JSONPath "\$\.value" matched nothing/.test(l)),
      `the missing value in the log:\n${lines.join("\n")}`,
    );
    await device.publishAsync("drive/setpoint", '{"value": "abc"}', { qos: 1 });
    await until(
      () => lines.some((l) => /Setpoint.*(xs:int|abc)/.test(l)),
      `the value that does not fit in the log:\n${lines.join("\n")}`,
    );
    assert.equal((await sut.element(DRIVE_SUBMODEL_ID, "Setpoint")).value, "5", "nothing of them reached the model");
    await device.publishAsync("drive/setpoint", '{"value": 6}', { qos: 1 });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Setpoint", (e) => e.value === "6");
    await until(() => status().failingProviders.length === 0, "the provider working again");
    assert.equal(status().state, "connected", "bad messages never break the connection");
  });
});

describe("MQTT value provider", () => {
  test("a model change is published with the template, QoS 1, not retained; a read answers the stored value", async () => {
    const received = await collect(device, "drive/setpoint/set");
    await start({
      "@class": MQTT,
      serverUri: broker.url,
      valueProviders: {
        [key("(Property)Setpoint")]: { format: "JSON", topic: "drive/setpoint/set", template: '{"rate": ${value}}' },
        [key("(Property)Label")]: { format: "JSON", topic: "drive/label/set" },
      },
    });
    await connected();
    const labels = await collect(device, "drive/label/set");
    assert.equal((await patchValue("Setpoint", 42)).ok, true);
    await until(() => received.length > 0, "the published setpoint");
    assert.deepEqual(received[0], { topic: "drive/setpoint/set", payload: '{"rate": 42}', qos: 1, retain: false });
    // Default template ${value}: the ValueOnly JSON, a string quoted.
    assert.equal((await patchValue("Label", 'say "hi" $1 \\')).ok, true);
    await until(() => labels.length > 0, "the published label");
    assert.equal(labels[0]!.payload, JSON.stringify('say "hi" $1 \\'));
    assert.equal(
      (await sut.element(DRIVE_SUBMODEL_ID, "Setpoint")).value,
      "42",
      "the model keeps the value; nothing is read from MQTT",
    );
    assert.deepEqual(status().failingProviders, []);
    // A value that came from the asset itself is not sent back (origin asset).
    assert.equal(received.length, 1);
  });
});

describe("MQTT connection", () => {
  test("user name and password are accepted; a wrong password shows in the state and is retried with back-off", async () => {
    const secured = await startMosquitto({ users: { aas: "s3cret" } });
    try {
      const right = { "@class": MQTT, serverUri: secured.url, username: "aas", password: "s3cret" };
      await start({
        ...right,
        subscriptionProviders: { [key("(Property)Label")]: { format: "JSON", topic: "auth/label" } },
      });
      await connected();
      await connections!.stop();
      const wrong = { ...right, password: "wrong" };
      const started = Date.now();
      await start(wrong);
      await until(
        () =>
          status().state === "waiting-to-retry" &&
          /Not authorized|Bad user name or password/i.test(status().lastError ?? ""),
        "the refusal in the state",
      );
      assert.ok(status().nextAttemptAt, "the next attempt is scheduled");
      const refusals = () =>
        readFileSync(secured.logFile, "utf8")
          .split("\n")
          .filter((line) => /disconnected, not authori[sz]ed/i.test(line)).length;
      await until(() => refusals() >= 3, "three attempts at the broker");
      // retry interval 100 ms doubling to 1 s: three attempts take 100 + 200 ms at least, not a tight loop.
      assert.ok(Date.now() - started >= 300);
      assert.equal(
        lines.filter((l) => /cannot connect to/.test(l)).length,
        1,
        `one log line for a repeated failure:\n${lines.join("\n")}`,
      );
    } finally {
      await connections?.stop();
      connections = undefined;
      await secured.stop();
    }
  });

  test("ssl:// to a broker with a self-signed certificate: refused until trustedCertificates holds it", async () => {
    const secured = await startMosquitto({ tls: true });
    try {
      const trustStore = join(dir, "broker.pem");
      writeFileSync(trustStore, secured.certificate!);
      const serverUri = `ssl://127.0.0.1:${secured.tlsPort}`;
      const providers = { subscriptionProviders: { [key("(Property)Label")]: { format: "JSON", topic: "tls/label" } } };
      await start({ "@class": MQTT, serverUri, ...providers });
      await until(
        () => /self[- ]signed certificate/i.test(status().lastError ?? ""),
        "the certificate refusal in the state",
      );
      await connections!.stop();
      await start({
        "@class": MQTT,
        serverUri,
        trustedCertificates: { keyStoreType: "PEM", keyStorePath: trustStore },
        ...providers,
      });
      await connected();
      const tlsDevice = await deviceClient(secured.tlsUrl!, { ca: secured.certificate });
      try {
        const deadline = Date.now() + 8000;
        while ((await sut.element(DRIVE_SUBMODEL_ID, "Label")).value !== "over TLS" && Date.now() < deadline) {
          await tlsDevice.publishAsync("tls/label", JSON.stringify("over TLS"), { qos: 1 });
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.equal((await sut.element(DRIVE_SUBMODEL_ID, "Label")).value, "over TLS");
      } finally {
        await tlsDevice.endAsync();
      }
    } finally {
      await connections?.stop();
      connections = undefined;
      await secured.stop();
    }
  });

  test("ssl:// to a broker that requires a client certificate: refused without clientCertificate, subscribed with it (issue 18.7)", async () => {
    const clientCa = opensslCertificate(dir, "mqtt-client-ca", "rsa", { ca: true });
    const client = opensslIssuedCertificate(dir, "mqtt-aas-client", clientCa, "ec");
    const clientKeyStore = opensslPkcs12(join(dir, "mqtt-aas-client.p12"), client, { storePassword: "changeit" });
    const secured = await startMosquitto({ tls: true, clientCa: clientCa.cert });
    try {
      const trustStore = join(dir, "mutual-broker.pem");
      writeFileSync(trustStore, secured.certificate!);
      const common = {
        "@class": MQTT,
        serverUri: `ssl://127.0.0.1:${secured.tlsPort}`,
        trustedCertificates: { keyStoreType: "PEM", keyStorePath: trustStore },
        subscriptionProviders: { [key("(Property)Label")]: { format: "JSON", topic: "mtls/label" } },
      };
      await start(common);
      await until(() => status().lastError !== undefined, "the refused handshake in the state");
      await connections!.stop();
      await start({
        ...common,
        clientCertificate: { keyStoreType: "PKCS12", keyStorePath: clientKeyStore, keyStorePassword: "changeit" },
      });
      await connected();
      // The device publishes on the broker's plain listener; the connection reads over mutual TLS.
      const device = await deviceClient(secured.url);
      try {
        const deadline = Date.now() + 8000;
        while ((await sut.element(DRIVE_SUBMODEL_ID, "Label")).value !== "mutual TLS" && Date.now() < deadline) {
          await device.publishAsync("mtls/label", JSON.stringify("mutual TLS"), { qos: 1 });
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.equal((await sut.element(DRIVE_SUBMODEL_ID, "Label")).value, "mutual TLS");
      } finally {
        await device.endAsync();
      }
    } finally {
      await connections?.stop();
      connections = undefined;
      await secured.stop();
    }
  });

  test("an unreachable broker: start returns at once, the state says why; a write made meanwhile is published once the broker is there", async () => {
    const port = await freePort();
    const started = Date.now();
    await start({
      "@class": MQTT,
      serverUri: `tcp://127.0.0.1:${port}`,
      valueProviders: { [key("(Property)Setpoint")]: { format: "JSON", topic: "late/setpoint" } },
      subscriptionProviders: { [key("(Property)Label")]: { format: "JSON", topic: "late/label" } },
    });
    assert.ok(Date.now() - started < 500, `start took ${Date.now() - started} ms`);
    await until(
      () => status().state === "waiting-to-retry" && /ECONNREFUSED/.test(status().lastError ?? ""),
      "the refusal in the state",
    );
    // The model is served meanwhile; the write waits for the broker.
    assert.equal((await patchValue("Setpoint", 7)).ok, true);
    assert.equal((await sut.element(DRIVE_SUBMODEL_ID, "Setpoint")).value, "7");
    // The broker comes up elsewhere first, so the device is subscribed before the connection can
    // reach it (the write is not retained: published earlier, the device would never see it). The
    // connection's port then starts forwarding to it: that is the moment the broker "is there".
    const late = await startMosquitto();
    let reachable: Server | undefined;
    try {
      const lateDevice = await deviceClient(late.url);
      try {
        const received = await collect(lateDevice, "late/setpoint");
        reachable = await forward(port, late.port);
        await until(() => status().state === "connected", "the connection once the broker is there", 15_000);
        await until(() => received.length > 0, "the waiting write published");
        assert.equal(received[0]!.payload, "7");
      } finally {
        await lateDevice.endAsync();
      }
    } finally {
      await connections?.stop();
      connections = undefined;
      await late.stop(); // ends the piped connections too, so close() below does not wait for them
      await new Promise((resolve) => (reachable ? reachable.close(resolve) : resolve(undefined)));
    }
  });

  test("the broker killed and restarted: the connection comes back by itself, subscriptions are restored, values flow again", async () => {
    let own = await startMosquitto();
    const port = own.port;
    try {
      await start({
        "@class": MQTT,
        serverUri: own.url,
        subscriptionProviders: { [key("(Property)Temperature")]: { format: "JSON", topic: "restart/t", query: "$.t" } },
        valueProviders: { [key("(Property)Setpoint")]: { format: "JSON", topic: "restart/setpoint" } },
      });
      await connected();
      let ownDevice = await deviceClient(own.url);
      const publishUntilOwn = async (value: number) => {
        const deadline = Date.now() + 10_000;
        while (Date.now() < deadline) {
          await ownDevice.publishAsync("restart/t", JSON.stringify({ t: value }), { qos: 1 });
          if ((await sut.element(DRIVE_SUBMODEL_ID, "Temperature")).value === String(value)) return;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.fail(`Temperature did not take ${value}; log:\n${lines.join("\n")}`);
      };
      await publishUntilOwn(1.5);
      await ownDevice.endAsync();
      process.kill(own.pid, "SIGKILL");
      await own.stop();
      await until(() => status().state !== "connected", "the loss noticed");
      assert.ok(
        lines.some((l) => /connection to .* lost/.test(l)),
        lines.join("\n"),
      );
      own = await startMosquitto({ port });
      await until(() => status().state === "connected", "reconnected", 15_000);
      ownDevice = await deviceClient(own.url);
      const received = await collect(ownDevice, "restart/setpoint");
      await publishUntilOwn(2.5);
      assert.equal((await patchValue("Setpoint", 9)).ok, true);
      await until(() => received.length > 0, "a write published on the new session");
      assert.equal(received[0]!.payload, "9");
      await ownDevice.endAsync();
    } finally {
      await connections?.stop();
      connections = undefined;
      await own.stop();
    }
  });
});

/** Listens on 127.0.0.1:`port` and pipes every connection to `targetPort`. */
async function forward(port: number, targetPort: number): Promise<Server> {
  const server = createServer((inbound) => {
    const outbound = createConnection({ host: "127.0.0.1", port: targetPort });
    inbound.pipe(outbound).pipe(inbound);
    inbound.on("error", () => outbound.destroy());
    outbound.on("error", () => inbound.destroy());
    inbound.on("close", () => outbound.destroy());
    outbound.on("close", () => inbound.destroy());
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", () => resolve()));
  return server;
}
