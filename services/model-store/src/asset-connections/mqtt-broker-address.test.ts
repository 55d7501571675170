import assert from "node:assert/strict";
import { test } from "node:test";
import { mqttBrokerAddress } from "./mqtt-broker-address.ts";

test("Paho's schemes map to mqtt.js transports, with Paho's default ports", () => {
  const pick = (uri: string) => {
    const { protocol, hostname, port, path, tls } = mqttBrokerAddress(uri);
    return { protocol, hostname, port, path, tls };
  };
  assert.deepEqual(pick("tcp://broker.example.org:1884"), {
    protocol: "mqtt",
    hostname: "broker.example.org",
    port: 1884,
    path: undefined,
    tls: false,
  });
  assert.deepEqual(pick("tcp://broker"), {
    protocol: "mqtt",
    hostname: "broker",
    port: 1883,
    path: undefined,
    tls: false,
  });
  assert.deepEqual(pick("ssl://broker"), {
    protocol: "mqtts",
    hostname: "broker",
    port: 8883,
    path: undefined,
    tls: true,
  });
  assert.deepEqual(pick("mqtt://10.0.0.5"), {
    protocol: "mqtt",
    hostname: "10.0.0.5",
    port: 1883,
    path: undefined,
    tls: false,
  });
  assert.deepEqual(pick("mqtts://[::1]:9883"), {
    protocol: "mqtts",
    hostname: "::1",
    port: 9883,
    path: undefined,
    tls: true,
  });
  // WebSockets: the path as written, "/" when there is none (Paho; mqtt.js alone would use "/mqtt").
  assert.deepEqual(pick("ws://broker:9001"), { protocol: "ws", hostname: "broker", port: 9001, path: "/", tls: false });
  assert.deepEqual(pick("wss://broker/mqtt?x=1"), {
    protocol: "wss",
    hostname: "broker",
    port: 443,
    path: "/mqtt?x=1",
    tls: true,
  });
});

test("the address shown in logs and status carries no user info", () => {
  assert.equal(mqttBrokerAddress("tcp://user:secret@broker:1883").display, "tcp://broker:1883");
  assert.throws(() => mqttBrokerAddress("http://broker"), /unsupported broker URI scheme "http"/);
});
