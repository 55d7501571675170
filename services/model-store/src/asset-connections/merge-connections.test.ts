import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError } from "@twinport/shared";
import { mergeConnections } from "./merge-connections.ts";
import { assetConnectionsConfig } from "./test-support/asset-connections.ts";

const HTTP = "assetconnection.http.HttpAssetConnection";
const OPCUA = "assetconnection.opcua.OpcUaAssetConnection";
const value = { format: "JSON", path: "/v" };

test("entries with equal connection settings become one; providers are combined, a duplicate dropped with a warning", () => {
  const warnings: string[] = [];
  const merged = mergeConnections(
    assetConnectionsConfig(
      { "@class": HTTP, baseUrl: "http://a", username: "", valueProviders: { "(Submodel)s, (Property)p1": value } },
      { "@class": HTTP, baseUrl: "http://b", valueProviders: { "(Submodel)s, (Property)p2": value } },
      // Same settings as the first (an empty user name equals none): merged into it.
      {
        "@class": HTTP,
        baseUrl: "http://a",
        subscriptionProviders: { "(Submodel)s, (Property)p1": value },
        valueProviders: { "(Submodel)s, (Property)p3": value },
      },
      {
        "@class": HTTP,
        baseUrl: "http://a",
        valueProviders: { "[ModelRef](Submodel)s, (SubmodelElement)p1": { ...value, path: "/other" } },
      },
    ),
    (line) => void warnings.push(line),
  );
  assert.equal(merged.length, 2);
  assert.deepEqual(merged[0]!.merged, [0, 2, 3]);
  assert.deepEqual(Object.keys(merged[0]!.config.valueProviders as object), [
    "(Submodel)s, (Property)p1",
    "(Submodel)s, (Property)p3",
  ]);
  assert.deepEqual(Object.keys(merged[0]!.config.subscriptionProviders as object), ["(Submodel)s, (Property)p1"]);
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0]!,
    /assetConnections\[3\]\.valueProviders: .* is dropped: assetConnections\[0\], the same connection, already has one for s p1/,
  );
  assert.notEqual(merged[0]!.id, merged[1]!.id);
  // The lease id depends only on the connection settings, so every replica computes the same one.
  assert.equal(
    merged[0]!.id,
    mergeConnections(assetConnectionsConfig({ "@class": HTTP, baseUrl: "http://a" }), () => {})[0]!.id,
  );
});

test("different headers or OPC UA timeouts keep connections apart", () => {
  const merged = mergeConnections(
    assetConnectionsConfig(
      { "@class": HTTP, baseUrl: "http://a", headers: { X: "1" } },
      { "@class": HTTP, baseUrl: "http://a", headers: { X: "2" } },
      { "@class": OPCUA, host: "opc.tcp://h:4840" },
      { "@class": OPCUA, host: "opc.tcp://h:4840", requestTimeout: 5000 },
      { "@class": OPCUA, host: "opc.tcp://h:4840", requestTimeout: 3000 },
    ),
    () => {},
  );
  assert.deepEqual(
    merged.map((m) => m.merged),
    [[0], [1], [2, 4], [3]],
  );
});

test("a different client certificate keeps HTTP and MQTT connections apart (another identity, another client)", () => {
  const store = (keyStorePath: string) => ({ keyStoreType: "PKCS12", keyStorePath, keyStorePassword: "changeit" });
  const MQTT = "assetconnection.mqtt.MqttAssetConnection";
  const merged = mergeConnections(
    assetConnectionsConfig(
      { "@class": HTTP, baseUrl: "https://a", clientCertificate: store("a.p12") },
      { "@class": HTTP, baseUrl: "https://a", clientCertificate: store("b.p12") },
      { "@class": HTTP, baseUrl: "https://a", clientCertificate: store("a.p12") },
      { "@class": MQTT, serverUri: "ssl://b:8883", clientCertificate: store("a.p12") },
      { "@class": MQTT, serverUri: "ssl://b:8883" },
    ),
    () => {},
  );
  assert.deepEqual(
    merged.map((m) => m.merged),
    [[0, 2], [1], [3], [4]],
  );
});

test("FA³ST's start-up checks across connections, all reported at once", () => {
  const run = () =>
    mergeConnections(
      assetConnectionsConfig(
        {
          "@class": HTTP,
          baseUrl: "http://a",
          valueProviders: { "(Submodel)s, (Property)p": value },
          operationProviders: { "(Submodel)s, (Operation)op": value },
        },
        {
          "@class": HTTP,
          baseUrl: "http://b",
          valueProviders: { "(Submodel)s, (Property)p": value },
          subscriptionProviders: { "(Submodel)s, (Operation)op": value },
        },
        {
          "@class": OPCUA,
          host: "opc.tcp://h",
          subscriptionProviders: { "(Submodel)s, (Property)p": { nodeId: "ns=2;s=p" } },
        },
      ),
      () => {},
    );
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ConfigError);
    assert.deepEqual(error.issues, [
      "assetConnections[1].valueProviders: s p already has a value provider in assetConnections[0]",
      "s op has an operation provider (assetConnections[0]) and a subscription provider (assetConnections[1]): an Operation has no value",
    ]);
    return true;
  });
});
