import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseReferenceText, providerTarget, ReferenceTextError } from "./asset-connection-reference.ts";
import type {
  HttpAssetConnectionConfig,
  MqttAssetConnectionConfig,
  OpcUaAssetConnectionConfig,
} from "./asset-connections.ts";
import { ConfigError } from "./config-error.ts";
import { validateConfig } from "./validate-config.ts";

const FAAAST = "de.fraunhofer.iosb.ilt.faaast.service";
const BASE = {
  persistence: { "@class": "persistence.memory.PersistenceInMemory" },
  messageBus: { "@class": "messagebus.internal.MessageBusInternal" },
  fileStorage: { "@class": "filestorage.memory.FileStorageInMemory" },
};

function load(...assetConnections: unknown[]) {
  return validateConfig({ ...BASE, assetConnections }).assetConnections;
}

function errors(...assetConnections: unknown[]): readonly string[] {
  try {
    load(...assetConnections);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.issues;
  }
  assert.fail("expected a ConfigError");
}

function referenceError(text: string): string {
  try {
    providerTarget(text);
  } catch (error) {
    assert.ok(error instanceof ReferenceTextError, String(error));
    return error.message;
  }
  assert.fail(`expected '${text}' to be refused`);
}

describe("provider keys (FA³ST's reference text)", () => {
  test("keys, an optional [ModelRef] prefix, key types in any FA³ST spelling", () => {
    assert.deepEqual(parseReferenceText("[ModelRef](Submodel)urn:x, (Property)P1"), [
      { type: "Submodel", value: "urn:x" },
      { type: "Property", value: "P1" },
    ]);
    assert.deepEqual(
      parseReferenceText("(submodel)urn:x, (SUBMODEL_ELEMENT_COLLECTION)C").map((k) => k.type),
      ["Submodel", "SubmodelElementCollection"],
    );
    // The value is everything after the first ")", verbatim: parentheses, brackets, "#", "/".
    assert.deepEqual(parseReferenceText("(Submodel)http://x/(a)[b]#c, (Property)p")[0], {
      type: "Submodel",
      value: "http://x/(a)[b]#c",
    });
  });

  test("the element path: idShorts, and list items by index", () => {
    assert.deepEqual(providerTarget("(Submodel)urn:x, (SubmodelElementCollection)Motor, (Property)Speed"), {
      submodelId: "urn:x",
      idShortPath: "Motor.Speed",
      keys: [
        { type: "Submodel", value: "urn:x" },
        { type: "SubmodelElementCollection", value: "Motor" },
        { type: "Property", value: "Speed" },
      ],
    });
    assert.equal(
      providerTarget("(Submodel)urn:x, (SubmodelElementList)Readings, (Property)0").idShortPath,
      "Readings[0]",
    );
    assert.equal(
      providerTarget("(Submodel)urn:x, (SubmodelElementList)L, (SubmodelElementList)12, (Property)3").idShortPath,
      "L[12][3]",
    );
    // FA³ST never compares key types, so a wrong type still names the element.
    assert.equal(providerTarget("(Submodel)urn:x, (SubmodelElement)P1").idShortPath, "P1");
  });

  test("refused with a reason", () => {
    assert.match(referenceError("(Submodel)[IRI]urn:x,(Property)[ID_SHORT]P1"), /old bracketed id-type form/);
    assert.match(
      referenceError("(Submodel)urn:x,(Property)P1"),
      /names a submodel, not an element \(keys are separated by ", " with a space/,
    );
    assert.match(
      referenceError("(AssetAdministrationShell)urn:aas, (Submodel)urn:x, (Property)P"),
      /starts with a AssetAdministrationShell key/,
    );
    assert.match(referenceError("(Submodel)urn:x, (Properti)P"), /unknown type "Properti"/);
    assert.match(
      referenceError("(submodelelementcollection)urn:x, (Property)P"),
      /unknown type "submodelelementcollection"/,
    );
    assert.match(referenceError("Submodel urn:x"), /does not start with "\(Type\)"/);
    assert.match(referenceError("(Submodel)urn:x, (SubmodelElementList)L, (Property)first"), /must be an item index/);
    assert.match(referenceError("(Submodel)urn:x, (Property) P1"), /" P1" is not an idShort/);
    assert.match(referenceError("(Submodel)urn:x, (Property)7"), /only list items are numbered/);
  });
});

describe("HTTP asset connection", () => {
  test("FA³ST's reference example loads with every default applied, full class name reduced", () => {
    const [connection] = load({
      "@class": `${FAAAST}.assetconnection.http.HttpAssetConnection`,
      baseUrl: "http://device.example.org:8080",
      username: "aas-reader",
      password: "example-secret",
      headers: { Accept: "application/json" },
      valueProviders: {
        "(Submodel)urn:d, (Property)Setpoint": {
          format: "JSON",
          path: "/api/setpoint",
          query: "$.data.setpoint",
          template: '{"setpoint": ${value}}',
        },
      },
      subscriptionProviders: {
        // FA³ST's docs show method and template here although the code reads neither: ignored with a warning, not an error.
        "[ModelRef](Submodel)urn:d, (SubmodelElementCollection)Status, (Property)Temperature": {
          format: "JSON",
          path: "/api/status",
          interval: "50",
          method: "GET",
          template: "x",
        },
      },
      operationProviders: {
        "(Submodel)urn:d, (Operation)Calibrate": {
          format: "JSON",
          path: "/api/calibrate",
          queries: { Deviation: "$.result.deviation" },
          inputValidationMode: "REQUIRE_PRESENT",
        },
      },
    }) as HttpAssetConnectionConfig[];
    assert.equal(connection!["@class"], "assetconnection.http.HttpAssetConnection");
    assert.deepEqual(connection!.valueProviders["(Submodel)urn:d, (Property)Setpoint"], {
      format: "JSON",
      path: "/api/setpoint",
      query: "$.data.setpoint",
      template: '{"setpoint": ${value}}',
      writeMethod: "PUT",
      headers: {},
      readWriteMode: "READ_WRITE",
      readInterval: 1000,
    });
    const subscription =
      connection!.subscriptionProviders[
        "[ModelRef](Submodel)urn:d, (SubmodelElementCollection)Status, (Property)Temperature"
      ]!;
    assert.equal(subscription.interval, 100, "a string number is read, and raised to the 100 ms minimum");
    assert.equal(subscription.headers && Object.keys(subscription.headers).length, 0);
    const operation = connection!.operationProviders["(Submodel)urn:d, (Operation)Calibrate"]!;
    assert.equal(operation.method, "POST");
    assert.equal(operation.mode, "DIRECT");
    assert.equal(operation.inputValidationMode, "REQUIRE_PRESENT");
    assert.equal(operation.outputValidationMode, "REQUIRE_PRESENT_OR_DEFAULT");
  });

  test("null means not set", () => {
    const [connection] = load({
      "@class": "assetconnection.http.HttpAssetConnection",
      baseUrl: "http://x",
      username: null,
      headers: null,
      valueProviders: { "(Submodel)u, (Property)p": { format: "JSON", path: "", query: null, writeMethod: null } },
    }) as HttpAssetConnectionConfig[];
    assert.equal(connection!.username, undefined);
    assert.deepEqual(connection!.headers, {});
    assert.equal(connection!.valueProviders["(Submodel)u, (Property)p"]!.writeMethod, "PUT");
  });

  test("problems are named with their path, all at once", () => {
    const issues = errors({
      "@class": "assetconnection.http.HttpAssetConnection",
      baseUrl: "ftp://x",
      valueProviders: {
        "(Submodel)u, (Property)a": { format: "XML", path: "/a" },
        "(Submodel)u, (Property)b": { path: "/b" },
        "(Submodel)u, (Property)c": { format: "JSON" },
        "(Submodel)u,(Property)d": { format: "JSON", path: "/d" },
      },
      subscriptionProviders: { "(Submodel)u, (Property)e": { format: "JSON", path: "/e", query: "jq|.x" } },
    });
    const all = issues.join("\n");
    assert.match(all, /assetConnections\[0\]\.baseUrl': expected an absolute http:\/\/ or https:\/\/ URL/);
    assert.match(all, /format "XML" is not implemented/);
    assert.match(all, /Missing 'assetConnections\[0\]\.valueProviders\.\(Submodel\)u, \(Property\)b\.format'/);
    assert.match(all, /Missing 'assetConnections\[0\]\.valueProviders\.\(Submodel\)u, \(Property\)c\.path'/);
    assert.match(all, /the provider key is not a usable reference: it names a submodel, not an element/);
    assert.match(all, /jq queries/);
    assert.equal(issues.length, 6, all);
  });

  test("a write or operation method is an HTTP method: any token but CONNECT, as written", () => {
    const connection = (writeMethod: unknown, method: unknown) => ({
      "@class": "assetconnection.http.HttpAssetConnection",
      baseUrl: "http://x",
      valueProviders: { "(Submodel)u, (Property)p": { format: "JSON", path: "/p", writeMethod } },
      operationProviders: { "(Submodel)u, (Operation)o": { format: "JSON", path: "/o", method } },
    });
    const [loaded] = load(connection("PATCH", "M-SEARCH")) as HttpAssetConnectionConfig[];
    assert.equal(loaded!.valueProviders["(Submodel)u, (Property)p"]!.writeMethod, "PATCH");
    assert.equal(loaded!.operationProviders["(Submodel)u, (Operation)o"]!.method, "M-SEARCH");
    const all = errors(connection("PUT /x", "connect")).join("\n");
    assert.match(all, /valueProviders\.\(Submodel\)u, \(Property\)p\.writeMethod': expected an HTTP method/);
    assert.match(all, /operationProviders\.\(Submodel\)u, \(Operation\)o\.method': CONNECT opens a tunnel/);
    assert.match(errors(connection("", "POST")).join("\n"), /writeMethod': expected an HTTP method/);
  });
});

describe("OPC UA asset connection", () => {
  test("FA³ST's reference example loads; defaults of the reference", () => {
    const [connection] = load({
      "@class": `${FAAAST}.assetconnection.opcua.OpcUaAssetConnection`,
      host: "opc.tcp://plc.example.org:4840",
      securityPolicy: "Basic256Sha256",
      securityMode: "SignAndEncrypt",
      userTokenType: "UserName",
      username: "operator",
      password: "example-secret",
      securityBaseDir: "./opcua-security",
      applicationCertificate: {
        keyStoreType: "PKCS12",
        keyStorePath: "client-application.p12",
        keyStorePassword: "changeit",
        keyAlias: "client",
        keyPassword: "changeit",
      },
      requestTimeout: 5000,
      valueProviders: {
        "(Submodel)urn:plc, (Property)MotorSpeed": { nodeId: "ns=2;s=Motor.Speed" },
        "(Submodel)urn:plc, (SubmodelElementCollection)Axes, (Property)Axis2Position": {
          nodeId: "nsu=urn:example:plc;s=AxisPositions",
          arrayIndex: "[1]",
        },
      },
      subscriptionProviders: { "(Submodel)urn:plc, (Property)Temperature": { nodeId: "ns=2;i=1001" } },
      operationProviders: {
        "(Submodel)urn:plc, (Operation)StartJob": {
          nodeId: "ns=2;s=Jobs.Start",
          parentNodeId: "",
          inputArgumentMapping: [{ idShort: "JobId", argumentName: "jobIdentifier" }],
        },
      },
    }) as OpcUaAssetConnectionConfig[];
    assert.equal(connection!.transportProfile, "TCP_UASC_UABINARY");
    assert.equal(connection!.acknowledgeTimeout, 10000);
    assert.equal(connection!.requestTimeout, 5000);
    assert.equal(connection!.authenticationCertificate.keyStorePath, "authentication.p12");
    assert.equal(connection!.authenticationCertificate.keyStoreType, "PKCS12");
    assert.equal(connection!.applicationCertificate.keyStorePath, "client-application.p12");
    assert.equal(connection!.subscriptionProviders["(Submodel)urn:plc, (Property)Temperature"]!.interval, 1000);
    const operation = connection!.operationProviders["(Submodel)urn:plc, (Operation)StartJob"]!;
    assert.equal(operation.parentNodeId, undefined, "an empty parentNodeId counts as not set");
    assert.deepEqual(operation.outputArgumentMapping, []);
  });

  test("defaults of a minimal connection", () => {
    const [connection] = load({
      "@class": "assetconnection.opcua.OpcUaAssetConnection",
      host: "opc.tcp://h:4840",
    }) as OpcUaAssetConnectionConfig[];
    assert.equal(connection!.securityPolicy, "None");
    assert.equal(connection!.securityMode, "None");
    assert.equal(connection!.userTokenType, "Anonymous");
    assert.equal(connection!.securityBaseDir, ".");
    assert.equal(connection!.applicationCertificate.keyStorePath, "application.p12");
    assert.equal(connection!.retries, 1);
    assert.deepEqual(connection!.valueProviders, {});
  });

  test("refused: enums in the wrong case, blank user name, unreachable combinations", () => {
    const all = errors(
      { "@class": "assetconnection.opcua.OpcUaAssetConnection", host: "opc.tcp://h", securityMode: "signandencrypt" },
      {
        "@class": "assetconnection.opcua.OpcUaAssetConnection",
        host: "opc.tcp://h",
        userTokenType: "UserName",
        username: " ",
      },
      { "@class": "assetconnection.opcua.OpcUaAssetConnection", host: "opc.tcp://h", securityPolicy: "Basic256Sha256" },
      {
        "@class": "assetconnection.opcua.OpcUaAssetConnection",
        host: "opc.tcp://h",
        transportProfile: "HTTPS_UABINARY",
        userTokenType: "IssuedToken",
      },
      {
        "@class": "assetconnection.opcua.OpcUaAssetConnection",
        valueProviders: { "(Submodel)u, (Property)p": { arrayIndex: "2" } },
      },
    ).join("\n");
    assert.match(
      all,
      /Invalid value "signandencrypt" at 'assetConnections\[0\]\.securityMode'\. Allowed: None, Sign, SignAndEncrypt/,
    );
    assert.match(all, /assetConnections\[1\]\.username': userTokenType "UserName" needs a non-blank username/);
    assert.match(
      all,
      /assetConnections\[2\]\.securityMode': securityPolicy "Basic256Sha256" with securityMode "None" matches no OPC UA endpoint/,
    );
    assert.match(all, /only TCP_UASC_UABINARY/);
    assert.match(all, /IssuedToken is not supported/);
    assert.match(all, /Missing 'assetConnections\[4\]\.host'/);
    assert.match(all, /Missing 'assetConnections\[4\]\.valueProviders\.\(Submodel\)u, \(Property\)p\.nodeId'/);
    assert.match(all, /expected one or more "\[n\]" groups/);
  });
});

describe("MQTT asset connection", () => {
  const MQTT = "assetconnection.mqtt.MqttAssetConnection";

  test("FA³ST's reference example loads with every default applied, full class name reduced", () => {
    const [connection] = load({
      "@class": `${FAAAST}.${MQTT}`,
      serverUri: "tcp://broker.example.org:1883",
      clientId: "aas-server-line1",
      username: "aas",
      password: "example-secret",
      valueProviders: {
        "(Submodel)urn:example:submodel:line1, (Property)TargetRate": {
          format: "JSON",
          topic: "example/line1/targetRate/set",
          template: '{"rate": ${value}}',
        },
      },
      subscriptionProviders: {
        "(Submodel)urn:example:submodel:line1, (Property)CurrentRate": {
          format: "JSON",
          topic: "example/line1/telemetry",
          query: "$.rate",
        },
        "(Submodel)urn:example:submodel:line1, (Property)State": {
          format: "JSON",
          topic: "example/line1/telemetry",
          query: "$.state",
        },
      },
    }) as [MqttAssetConnectionConfig];
    assert.deepEqual(connection, {
      "@class": MQTT,
      serverUri: "tcp://broker.example.org:1883",
      clientId: "aas-server-line1",
      username: "aas",
      password: "example-secret",
      valueProviders: {
        "(Submodel)urn:example:submodel:line1, (Property)TargetRate": {
          format: "JSON",
          topic: "example/line1/targetRate/set",
          template: '{"rate": ${value}}',
          readWriteMode: "READ_WRITE",
        },
      },
      subscriptionProviders: {
        "(Submodel)urn:example:submodel:line1, (Property)CurrentRate": {
          format: "JSON",
          topic: "example/line1/telemetry",
          query: "$.rate",
        },
        "(Submodel)urn:example:submodel:line1, (Property)State": {
          format: "JSON",
          topic: "example/line1/telemetry",
          query: "$.state",
        },
      },
      operationProviders: {},
    });
  });

  test("every broker URI scheme; null means not set; an unknown property is an error with a suggestion", () => {
    for (const serverUri of [
      "tcp://b:1883",
      "ssl://b:8883",
      "ws://b:9001/mqtt",
      "wss://b",
      "mqtt://b",
      "mqtts://b:8883",
    ]) {
      assert.equal((load({ "@class": MQTT, serverUri }) as [MqttAssetConnectionConfig])[0].serverUri, serverUri);
    }
    const [connection] = load({
      "@class": MQTT,
      serverUri: "tcp://b:1883",
      clientId: null,
      username: null,
    }) as [MqttAssetConnectionConfig];
    assert.equal(connection.clientId, undefined);
    assert.equal(connection.username, undefined);
    assert.throws(
      () => load({ "@class": MQTT, serverUri: "tcp://b:1883", clientID: "x" }),
      /Unknown key 'assetConnections\[0\]\.clientID'\. Did you mean 'clientId'\?/,
    );
    const [withTrust] = load({
      "@class": MQTT,
      serverUri: "ssl://b:8883",
      trustedCertificates: { keyStorePath: "broker.pem", keyStoreType: "PEM" },
    }) as [MqttAssetConnectionConfig];
    assert.deepEqual(withTrust.trustedCertificates, { keyStoreType: "PEM", keyStorePath: "broker.pem" });
  });

  test("refused with reasons: URI, topics, format, operation providers", () => {
    const key = "(Submodel)u, (Property)p";
    const all = errors(
      { "@class": MQTT, serverUri: "http://b:1883" },
      { "@class": MQTT },
      { "@class": MQTT, serverUri: "tcp://b", valueProviders: { [key]: { format: "JSON", topic: "a/+/set" } } },
      { "@class": MQTT, serverUri: "tcp://b", subscriptionProviders: { [key]: { format: "JSON", topic: "a/#/b" } } },
      { "@class": MQTT, serverUri: "tcp://b", subscriptionProviders: { [key]: { format: "XML", topic: "a/b+" } } },
      { "@class": MQTT, serverUri: "tcp://b", subscriptionProviders: { [key]: { topic: "a" } } },
      {
        "@class": MQTT,
        serverUri: "tcp://b",
        operationProviders: { "(Submodel)u, (Operation)o": { format: "JSON", topic: "x" } },
      },
      { "@class": MQTT, serverUri: "tcp://user:secret@b" },
    ).join("\n");
    assert.match(all, /assetConnections\[7\]\.serverUri'.*put the credentials in username and password/);
    assert.match(all, /assetConnections\[0\]\.serverUri'.*expected a broker URI such as tcp:\/\/host:1883/);
    assert.match(all, /Missing 'assetConnections\[1\]\.serverUri'/);
    assert.match(all, /assetConnections\[2\]\.valueProviders.*topic'.*cannot contain the wildcards/);
    assert.match(all, /assetConnections\[3\]\.subscriptionProviders.*topic'.*invalid topic filter/);
    assert.match(all, /assetConnections\[4\]\.subscriptionProviders.*format'.*"XML" is not implemented/);
    assert.match(all, /assetConnections\[4\]\.subscriptionProviders.*topic'.*invalid topic filter/);
    assert.match(all, /Missing 'assetConnections\[5\]\.subscriptionProviders.*format'/);
    assert.match(all, /assetConnections\[6\]\.operationProviders'.*MQTT asset connections have no operation providers/);
  });
});

test("an OPC UA asset connection's host is an opc.tcp:// URL; anything else stops the start naming the key", async () => {
  const { opcuaAssetConnectionSchema } = await import("./asset-connections.ts");
  for (const host of [
    "opc.tcp://plc-7:4840",
    "opc.tcp://[::1]:4840",
    "opc.tcp://10.0.0.5:4840/UA/Server",
    "OPC.TCP://h",
  ])
    assert.ok(
      opcuaAssetConnectionSchema.safeParse({ "@class": "assetconnection.opcua.OpcUaAssetConnection", host }).success,
      host,
    );
  for (const host of ["not a url", "http://127.0.0.1:25011", "opc.tcp://", "opc.tcp://a b:4840"])
    assert.ok(
      !opcuaAssetConnectionSchema.safeParse({ "@class": "assetconnection.opcua.OpcUaAssetConnection", host }).success,
      host,
    );
});
