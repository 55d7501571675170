import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import {
  ConfigError,
  type ConfigRole,
  loadConfig,
  type MessageBusMqttConfig,
  type MessageBusNatsConfig,
  mqttPublishingFor,
} from "./index.ts";

const FAAAST = "de.fraunhofer.iosb.ilt.faaast.service";
const dir = mkdtempSync(join(tmpdir(), "twinport-config-mqtt-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let count = 0;
const loadWithWarnings = (content: unknown, role: ConfigRole = "embedded") => {
  const file = join(dir, `config-${count++}.json`);
  writeFileSync(file, JSON.stringify(content));
  return loadConfig({ role, configFile: file });
};
const load = (content: unknown, role: ConfigRole = "embedded") => loadWithWarnings(content, role).config;
const errorOf = (content: unknown, role: ConfigRole = "embedded"): string => {
  try {
    load(content, role);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail("expected a ConfigError");
};

/** FA³ST's documented MessageBusMqtt example (docs/source/messagebus/mqtt_messagebus.md), external broker. */
const FAAAST_EXAMPLE = {
  "@class": `${FAAAST}.messagebus.mqtt.MessageBusMqtt`,
  useInternalServer: false,
  port: 1883,
  sslPort: 8883,
  host: "localhost",
  websocketPort: 9001,
  sslWebsocketPort: 443,
  serverCertificate: {
    keyStoreType: "PKCS12",
    keyStorePath: "C:\\faaast\\MyKeyStore.p12",
    keyStorePassword: "changeit",
    keyAlias: "server-key",
    keyPassword: "changeit",
  },
  users: { user1: "password1" },
  username: "messagebus-user",
  password: "messagebus-password",
  clientId: "CustomClientId",
  topicPrefix: "faaast/events/",
};

test("FA³ST's MessageBusMqtt example loads; the embedded-broker keys are named in warnings", () => {
  const { config, warnings } = loadWithWarnings({ messageBus: FAAAST_EXAMPLE });
  const bus = config.messageBus as MessageBusMqttConfig;
  assert.equal(bus["@class"], "messagebus.mqtt.MessageBusMqtt");
  const publishing = mqttPublishingFor(bus);
  assert.ok(publishing);
  assert.equal(publishing.host, "localhost");
  assert.equal(publishing.topicPrefix, "faaast/events/");
  assert.equal(publishing.clientId, "CustomClientId");
  assert.equal(publishing.username, "messagebus-user");
  assert.equal(publishing.qos, 1);
  assert.equal(publishing.retainValues, false);
  assert.equal("users" in publishing, false, "only publishing settings");
  assert.deepEqual(warnings, [
    "FA³ST option messageBus.serverCertificate is not supported by Twinport and is ignored (it configures FA³ST's embedded broker)",
    "FA³ST option messageBus.users is not supported by Twinport and is ignored (it configures FA³ST's embedded broker)",
  ]);
});

test("FA³ST's defaults: events/ prefix, client id, port 1883 on localhost", () => {
  const publishing = mqttPublishingFor(
    load({ messageBus: { "@class": "messagebus.mqtt.MessageBusMqtt", useInternalServer: false } }).messageBus as never,
  );
  assert.equal(publishing?.topicPrefix, "events/");
  assert.equal(publishing?.clientId, "FAST MQTT MessageBus");
  assert.equal(publishing?.host, "localhost");
  assert.equal(publishing?.port, 1883);
  assert.equal(publishing?.sslPort, 8883);
});

test("an embedded broker (useInternalServer true, FA³ST's default) is refused with what to write instead", () => {
  for (const bus of [
    { "@class": "messagebus.mqtt.MessageBusMqtt" },
    { "@class": "messagebus.mqtt.MessageBusMqtt", useInternalServer: true },
  ]) {
    assert.match(
      errorOf({ messageBus: bus }),
      /messageBus\.useInternalServer.*Twinport has no embedded MQTT broker: set "useInternalServer": false/,
    );
  }
});

test("unknown keys stay errors; bad values name the setting", () => {
  assert.match(
    errorOf({ messageBus: { "@class": "messagebus.mqtt.MessageBusMqtt", useInternalServer: false, topicPrefx: "x/" } }),
    /Unknown key 'messageBus\.topicPrefx'\. Did you mean 'topicPrefix'\? Allowed: .*topicPrefix/,
  );
  assert.match(
    errorOf({ messageBus: { "@class": "messagebus.mqtt.MessageBusMqtt", useInternalServer: false, qos: 3 } }),
    /messageBus\.qos/,
  );
  assert.match(
    errorOf({
      messageBus: { "@class": "messagebus.mqtt.MessageBusMqtt", useInternalServer: false, serverUri: "http://x" },
    }),
    /messageBus\.serverUri.*expected a broker URI/,
  );
});

test("distributed mode: an mqtt object in the NATS entry; MessageBusMqtt itself is an embedded-mode class", () => {
  const config = load(
    {
      messageBus: {
        "@class": "messagebus.nats.MessageBusNats",
        url: "nats://n:4222",
        mqtt: { serverUri: "mqtts://broker:8883", qos: 0, retainValues: true },
      },
    },
    "model-store",
  );
  const publishing = mqttPublishingFor(config.messageBus as MessageBusNatsConfig);
  assert.equal(publishing?.serverUri, "mqtts://broker:8883");
  assert.equal(publishing?.qos, 0);
  assert.equal(publishing?.retainValues, true);
  assert.equal(mqttPublishingFor(load({}, "model-store").messageBus as MessageBusNatsConfig), undefined);
  // The embedded-broker keys have no place there.
  assert.match(
    errorOf(
      { messageBus: { "@class": "messagebus.nats.MessageBusNats", mqtt: { useInternalServer: false } } },
      "model-store",
    ),
    /Unknown key 'messageBus\.mqtt\.useInternalServer'/,
  );
});

test("FA³ST's earlier key names: clientKeystorePath/Password are the client key store; the server ones are ignored with a warning", () => {
  const { config, warnings } = loadWithWarnings({
    messageBus: {
      "@class": "messagebus.mqtt.MessageBusMqtt",
      useInternalServer: false,
      clientKeystorePath: "client.p12",
      clientKeystorePassword: "changeit",
      serverKeystorePath: "server.p12",
      passwordFile: "passwords.conf",
    },
  });
  const bus = config.messageBus as MessageBusMqttConfig;
  assert.deepEqual(mqttPublishingFor(bus)?.clientCertificate, {
    keyStoreType: "PKCS12",
    keyStorePath: "client.p12",
    keyStorePassword: "changeit",
  });
  assert.deepEqual(
    warnings.map((warning) => /messageBus\.(\w+)/.exec(warning)?.[1]),
    ["serverKeystorePath", "passwordFile"],
  );
});
