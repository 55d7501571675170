import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { AIMC_PROCESSOR_CLASS, type AimcProcessorConfig } from "@twinport/shared";
import { type DeriveInput, deriveAssetConnections, submodelRole } from "./derive-connections.ts";
import type { Json } from "./model-tree.ts";

const ROOT = new URL("../../../../", import.meta.url);
const read = (path: string): Json => JSON.parse(readFileSync(new URL(path, ROOT), "utf8")) as Json;
const PROCESSOR: AimcProcessorConfig = {
  "@class": AIMC_PROCESSOR_CLASS,
  credentials: {},
  opcuaSecurityBaseDir: {},
  subscriptionInterval: 1000,
};
const AIMC_SID = "https://admin-shell.io/idta/AssetInterfacesMappingConfiguration/1/0/";

function derive(aimc: Json, submodels: Json[], processor: AimcProcessorConfig = PROCESSOR) {
  const byId = new Map([aimc, ...submodels].map((submodel) => [String(submodel.id), submodel]));
  const input: DeriveInput = { aimc, submodel: (id) => byId.get(id), processor };
  return deriveAssetConnections(input);
}

/** Finds the first element (depth first) whose idShort is `idShort`, to edit a copy of a fixture. */
function find(root: unknown, idShort: string): Json {
  const stack = [root];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...[...node].reverse());
    else if (typeof node === "object" && node !== null) {
      if ((node as Json).idShort === idShort) return node as Json;
      stack.push(...Object.values(node).reverse());
    }
  }
  throw new Error(`no ${idShort}`);
}

const clone = <T>(value: T): T => structuredClone(value);

describe("the IDTA template pair (filled in)", () => {
  const aid = read("tests/fixtures/aid-aimc/aid-template-instance.json");
  const aimc = read("tests/fixtures/aid-aimc/aimc-template-instance.json");
  const OD = "https://example.com/ids/sm/template-operational-data";

  test("HTTP: an observable nested field becomes a polled subscription with a JSONPath; the template's misspelled PropertyDefinition is accepted", () => {
    const { connections } = derive(aimc, [aid]);
    const http = connections.find((c) => c["@class"] === "assetconnection.http.HttpAssetConnection") as unknown as Json;
    assert.equal(http.baseUrl, "http://127.0.0.1:8081");
    assert.deepEqual(http.subscriptionProviders, {
      [`(Submodel)${OD}, (Property)Voltage`]: {
        format: "JSON",
        path: "/sampleDevice/properties/voltage",
        query: "$.value",
        interval: 1000,
        headers: {},
      },
    });
    assert.deepEqual(http.valueProviders, {});
  });

  test("MQTT: the template's td:base, the topic from href", () => {
    const { connections } = derive(aimc, [aid]);
    const mqtt = connections.find((c) => c["@class"] === "assetconnection.mqtt.MqttAssetConnection") as unknown as Json;
    assert.equal(mqtt.serverUri, "mqtt://127.0.0.1:1883");
    const providers = mqtt.subscriptionProviders as Record<string, Json>;
    assert.deepEqual(Object.keys(providers), [`(Submodel)${OD}, (Property)MqttVoltage`]);
    assert.equal(providers[`(Submodel)${OD}, (Property)MqttVoltage`]!.topic, "sampleDevice/voltage");
    assert.equal(providers[`(Submodel)${OD}, (Property)MqttVoltage`]!.format, "JSON");
  });

  test("MQTT topics per AID Annex B.2: an absolute href's path after the authority, .// for a leading slash, %23 decoded", () => {
    const topicFor = (href: string) => {
      const changed = clone(aid);
      find(find(changed, "InterfaceMQTT"), "href").value = href;
      const { connections, problems } = derive(aimc, [changed]);
      const mqtt = connections.find((c) => c["@class"] === "assetconnection.mqtt.MqttAssetConnection") as unknown as
        | { subscriptionProviders: Record<string, Json> }
        | undefined;
      return mqtt
        ? Object.values(mqtt.subscriptionProviders)[0]!.topic
        : problems.find((p) => p.includes("InterfaceMQTT"));
    };
    assert.equal(topicFor("mqtt://127.0.0.1:1883//plant/a"), "/plant/a");
    assert.equal(topicFor("mqtt://127.0.0.1:1883/plant/a"), "plant/a");
    assert.equal(topicFor(".//plant/a"), "/plant/a");
    assert.equal(topicFor("plant/%23"), "plant/#");
    assert.match(String(topicFor("mqtt://elsewhere:1883/plant/a")), /names another broker/);
  });

  test("an interface with only an ExternalDescriptor, an unknown binding, an unsupported security scheme: each reported", () => {
    const changed = clone(aid);
    const http = find(changed, "InterfaceHTTP");
    http.value = (http.value as Json[]).filter((child) => child.idShort !== "EndpointMetadata");
    (http.value as Json[]).push({
      modelType: "SubmodelElementCollection",
      idShort: "ExternalDescriptor",
      semanticId: {
        type: "ExternalReference",
        keys: [
          {
            type: "GlobalReference",
            value: "https://admin-shell.io/idta/AssetInterfacesDescription/1/0/ExternalDescriptor",
          },
        ],
      },
      value: [],
    });
    const mqtt = find(changed, "InterfaceMQTT");
    (mqtt.supplementalSemanticIds as Json[]).splice(0, 1, {
      type: "ExternalReference",
      keys: [{ type: "GlobalReference", value: "urn:example:coap" }],
    });
    const { problems } = derive(aimc, [changed]);
    assert.match(
      problems[0]!,
      /InterfaceHTTP\): described only by an ExternalDescriptor \(no EndpointMetadata\): cannot connect, skipped/,
    );
    assert.match(
      problems[1]!,
      /InterfaceMQTT\): no protocol binding among its supplementalSemanticIds \(urn:example:coap, https:\/\/www\.w3\.org\/2019\/wot\/td\)/,
    );

    const bearer = clone(aid);
    const reference = (find(find(bearer, "InterfaceHTTP"), "security").value as Json[])[0]!.value as {
      keys: { value: string }[];
    };
    reference.keys.at(-1)!.value = "bearer_sc";
    const definitions = find(find(bearer, "InterfaceHTTP"), "securityDefinitions");
    (definitions.value as Json[]).push({
      modelType: "SubmodelElementCollection",
      idShort: "bearer_sc",
      semanticId: {
        type: "ExternalReference",
        keys: [{ type: "GlobalReference", value: "https://www.w3.org/2019/wot/security#BearerSecurityScheme" }],
      },
      value: [],
    });
    const result = derive(aimc, [bearer]);
    assert.match(
      result.problems.join("\n"),
      /InterfaceHTTP\): security bearer is not supported \(nosec and basic are\): connects without authentication/,
    );
    assert.equal(result.connections.length, 2, "still connected, without authentication");
  });

  test("Modbus is reported and skipped; the AID is a dependency", () => {
    const { connections, problems, dependsOn } = derive(aimc, [aid]);
    assert.equal(connections.length, 2);
    assert.deepEqual(problems, [
      "MappingConfigurations[2] (interface InterfaceMODBUS): uses Modbus: not supported (HTTP, MQTT and OPC UA are), skipped",
    ]);
    assert.deepEqual(dependsOn, ["https://example.com/ids/sm/template-aid"]);
  });

  test("recognised by submodel semanticId: AID 1.0 and 1.1, AIMC 1.0; AIMC 2.0 is told apart", () => {
    assert.equal(submodelRole(aid), "aid");
    assert.equal(submodelRole(aimc), "aimc");
    const aid11 = clone(aid);
    (aid11.semanticId as { keys: { value: string }[] }).keys[0]!.value =
      "https://admin-shell.io/idta/AssetInterfacesDescription/1/1/Submodel";
    assert.equal(submodelRole(aid11), "aid");
    assert.equal(
      submodelRole({
        semanticId: {
          keys: [
            {
              type: "GlobalReference",
              value: "https://admin-shell.io/idta/AssetInterfacesMappingConfiguration/2/0/Submodel",
            },
          ],
        },
      }),
      "aimc-unsupported",
    );
    assert.equal(submodelRole({ id: "x" }), undefined);
  });
});

describe("the example pair (examples/aid-aimc)", () => {
  const aid = read("examples/aid-aimc/aid.json");
  const aimc = read("examples/aid-aimc/aimc.json");
  const OD = "https://example.com/ids/sm/operational-data";

  test("an observable property is polled, a non-observable nested field is a read-only value provider", () => {
    const { connections, problems } = derive(aimc, [aid], { ...PROCESSOR, subscriptionInterval: 250 });
    assert.deepEqual(problems, []);
    assert.equal(connections.length, 1);
    const http = connections[0] as unknown as Json;
    assert.deepEqual(http.subscriptionProviders, {
      [`(Submodel)${OD}, (Property)Temperature`]: {
        format: "JSON",
        path: "/api/temperature",
        interval: 250,
        headers: {},
      },
    });
    assert.deepEqual(http.valueProviders, {
      [`(Submodel)${OD}, (Property)Speed`]: {
        format: "JSON",
        path: "/api/status",
        query: "$.speed",
        headers: {},
        writeMethod: "PUT",
        readWriteMode: "READ",
        readInterval: 1000,
      },
    });
    assert.equal(http.username, undefined);
  });

  test("basic_sc takes the first credentials configured for exactly this base; none configured is a problem", () => {
    const secured = clone(aid);
    const reference = (find(secured, "security").value as Json[])[0]!.value as { keys: { value: string }[] };
    reference.keys.at(-1)!.value = "basic_sc";
    const withCredentials = derive(aimc, [secured], {
      ...PROCESSOR,
      credentials: {
        "http://127.0.0.1:8081": [
          { username: "u", password: "p" },
          { username: "v", password: "q" },
        ],
      },
    });
    assert.deepEqual(withCredentials.problems, []);
    assert.equal((withCredentials.connections[0] as unknown as Json).username, "u");
    assert.equal((withCredentials.connections[0] as unknown as Json).password, "p");
    const otherBase = derive(aimc, [secured], {
      ...PROCESSOR,
      credentials: { "http://127.0.0.1:8081/": [{ username: "u", password: "p" }] },
    });
    assert.match(
      otherBase.problems.join("\n"),
      /basic_sc, but no credentials are configured for base "http:\/\/127\.0\.0\.1:8081".*connects without authentication/,
    );
    assert.equal((otherBase.connections[0] as unknown as Json).username, undefined);
  });

  test("td:base instead of td:baseURI; htv_headers; an href resolved like a link (absolute when FA³ST's two rules disagree)", () => {
    const changed = clone(aid);
    const base = find(changed, "base");
    (base.semanticId as { keys: { value: string }[] }).keys[0]!.value = "https://www.w3.org/2019/wot/td#base";
    base.value = "http://127.0.0.1:8081/dev/";
    const forms = find(find(changed, "temperature"), "forms");
    (forms.value as Json[]).push({
      modelType: "SubmodelElementList",
      idShort: "htv_headers",
      semanticId: {
        type: "ExternalReference",
        keys: [{ type: "GlobalReference", value: "https://www.w3.org/2011/http#headers" }],
      },
      typeValueListElement: "SubmodelElementCollection",
      value: [
        {
          modelType: "SubmodelElementCollection",
          value: [
            {
              modelType: "Property",
              idShort: "htv_fieldName",
              valueType: "xs:string",
              value: "Accept",
              semanticId: {
                type: "ExternalReference",
                keys: [{ type: "GlobalReference", value: "https://www.w3.org/2011/http#fieldName" }],
              },
            },
            {
              modelType: "Property",
              idShort: "htv_fieldValue",
              valueType: "xs:string",
              value: "application/json",
              semanticId: {
                type: "ExternalReference",
                keys: [{ type: "GlobalReference", value: "https://www.w3.org/2011/http#fieldValue" }],
              },
            },
          ],
        },
      ],
    });
    find(find(changed, "status"), "href").value = "api/status";
    const { connections, problems } = derive(aimc, [changed]);
    assert.deepEqual(problems, []);
    const http = connections[0] as unknown as {
      baseUrl: string;
      subscriptionProviders: Record<string, Json>;
      valueProviders: Record<string, Json>;
    };
    assert.equal(http.baseUrl, "http://127.0.0.1:8081/dev/");
    const [subscription] = Object.values(http.subscriptionProviders);
    assert.equal(
      subscription!.path,
      "http://127.0.0.1:8081/api/temperature",
      "a leading / replaces the base path (FA³ST 1.3.0); written absolute so every rule agrees",
    );
    assert.deepEqual(subscription!.headers, { Accept: "application/json" });
    assert.equal(Object.values(http.valueProviders)[0]!.path, "api/status");
  });

  test("a missing AID, a wrong InterfaceReference, a write form, XML and a bad sink are each one clear problem", () => {
    assert.deepEqual(derive(aimc, []).problems, [
      "MappingConfigurations[0]: InterfaceReference target not found: (Submodel)https://example.com/ids/sm/pump-aid, (SubmodelElementCollection)InterfaceHTTP",
    ]);
    const changed = clone(aid);
    find(find(changed, "temperature"), "htv_methodName").value = "PUT";
    find(find(changed, "status"), "contentType").value = "application/xml";
    const result = derive(aimc, [changed]);
    assert.equal(result.connections.length, 0);
    assert.match(
      result.problems[0]!,
      /MappingSourceSinkRelations\[0\]: property temperature: htv_methodName PUT is not a read/,
    );
    assert.match(
      result.problems[1]!,
      /MappingSourceSinkRelations\[1\]: contentType application\/xml: XML payloads are not supported/,
    );
    assert.match(result.problems[2]!, /no usable mapping relation: no connection/);

    const badSink = clone(aimc);
    const relation = (find(badSink, "MappingSourceSinkRelations").value as Json[])[0]!;
    relation.second = {
      type: "ModelReference",
      keys: [
        { type: "AssetAdministrationShell", value: "urn:shell" },
        { type: "Property", value: "P" },
      ],
    };
    assert.match(
      derive(badSink, [aid]).problems.join("\n"),
      /the sink \(AssetAdministrationShell\)urn:shell, \(Property\)P does not name an element/,
    );
  });

  test("a relation whose first points outside its interface, or at a non-property, is skipped with its reason", () => {
    const changed = clone(aimc);
    const relations = find(changed, "MappingSourceSinkRelations").value as Json[];
    const first = relations[0]!.first as { keys: { value: string }[] };
    first.keys[1]!.value = "InterfaceMQTT";
    const second = relations[1]!.first as { keys: { value: string }[] };
    second.keys.splice(4);
    const { problems, connections } = derive(changed, [aid]);
    assert.match(problems[0]!, /first .*InterfaceMQTT.* is not inside the interface/);
    assert.match(problems[1]!, /properties is not an AID property definition/);
    assert.equal(connections.length, 0);
  });

  test("the same sink mapped twice keeps the first", () => {
    const changed = clone(aimc);
    const list = find(changed, "MappingSourceSinkRelations").value as Json[];
    list.push(clone(list[0]!));
    const { problems, connections } = derive(changed, [aid]);
    assert.match(
      problems.join("\n"),
      /MappingSourceSinkRelations\[2\]: \(Submodel\).*Temperature is already fed by .*MappingSourceSinkRelations\[0\]/,
    );
    assert.equal(Object.keys((connections[0] as unknown as Json).subscriptionProviders as Json).length, 1);
  });

  test("malformed input never throws", () => {
    for (const aimcLike of [
      { id: "x" },
      { id: "x", submodelElements: "nope" },
      {
        id: "x",
        submodelElements: [
          {
            modelType: "SubmodelElementList",
            idShort: "MappingConfigurations",
            value: [
              {
                modelType: "SubmodelElementCollection",
                semanticId: { keys: [{ type: "GlobalReference", value: `${AIMC_SID}MappingConfiguration` }] },
                value: [{ idShort: "InterfaceReference", value: { keys: "bad" } }],
              },
            ],
          },
        ],
      },
    ]) {
      const result = derive(aimcLike as Json, [aid]);
      assert.equal(result.connections.length, 0);
      assert.ok(result.problems.length > 0);
    }
  });
});

describe("FA³ST's example shape: HTTP, MQTT and OPC UA interfaces (tests/fixtures/aid-aimc/faaast-shaped-example.json)", () => {
  const [aid, aimc] = read("tests/fixtures/aid-aimc/faaast-shaped-example.json").submodels as Json[] as [Json, Json];
  const TARGET = "https://example.com/ids/sm/faaast-OperationalData";

  test("OPC UA: node ids from the forms' href; observable → monitored item at subscriptionInterval, else read-only value provider", () => {
    const { connections, problems } = derive(aimc, [aid], { ...PROCESSOR, subscriptionInterval: 0 });
    assert.deepEqual(problems, []);
    assert.deepEqual(
      connections.map((c) => c["@class"]),
      [
        "assetconnection.http.HttpAssetConnection",
        "assetconnection.mqtt.MqttAssetConnection",
        "assetconnection.opcua.OpcUaAssetConnection",
      ],
    );
    const opcua = connections[2] as unknown as Json;
    assert.equal(opcua.host, "opc.tcp://127.0.0.1:4840");
    assert.equal(opcua.securityPolicy, "None");
    const subscriptions = opcua.subscriptionProviders as Record<string, Json>;
    assert.deepEqual(subscriptions[`(Submodel)${TARGET}, (Property)OpcuaTemperature`], {
      nodeId: "nsu=urn:twinport:test:device;s=Temperature",
      interval: 0,
    });
    const values = opcua.valueProviders as Record<string, Json>;
    assert.equal(values[`(Submodel)${TARGET}, (Property)OpcuaSerial`]!.nodeId, "nsu=urn:twinport:test:device;s=Serial");
    assert.equal(values[`(Submodel)${TARGET}, (Property)OpcuaSerial`]!.readWriteMode, "READ");
    // subscriptionInterval 0 (FA³ST's test): HTTP polls at FA³ST's floor of 100 ms.
    const http = connections[0] as unknown as Json;
    assert.equal(
      (http.subscriptionProviders as Record<string, Json>)[`(Submodel)${TARGET}, (Property)Voltage`]!.interval,
      100,
    );
  });

  test("OPC UA hrefs: ?id= forms, percent-encoding and bare node ids are read; anything else is one clear problem", () => {
    const variant = (href: string) => {
      const copy = clone(aid);
      const temperature = find(find(copy, "InterfaceOPCUA"), "temperature");
      find(temperature, "href").value = href;
      return derive(aimc, [copy]);
    };
    const nodeIdOf = (result: ReturnType<typeof derive>) =>
      ((result.connections[2] as unknown as Json).subscriptionProviders as Record<string, Json>)[
        `(Submodel)${TARGET}, (Property)OpcuaTemperature`
      ]?.nodeId;
    assert.equal(nodeIdOf(variant("?id=ns=2%3Bs%3DTemperature")), "ns=2;s=Temperature");
    assert.equal(nodeIdOf(variant("ns=2;i=1001")), "ns=2;i=1001");
    const bad = variant("/Objects/Machine/Temperature");
    assert.match(
      bad.problems.join("\n"),
      /property temperature: href "\/Objects\/Machine\/Temperature" names no OPC UA node: write "\/\?id=<nodeId>"/,
    );
  });

  test("OPC UA security: a channel scheme's mode and policy, an authentication scheme takes the base's credentials as UserName", () => {
    const copy = clone(aid);
    const face = find(copy, "InterfaceOPCUA");
    const scheme = find(face, "nosec_sc");
    scheme.idShort = "opcua_channel_sc";
    (scheme.value as Json[])[0]!.value = "opcua-channel-security";
    (scheme.value as Json[]).push(
      { modelType: "Property", idShort: "securityMode", valueType: "xs:string", value: "SignAndEncrypt" },
      {
        modelType: "Property",
        idShort: "securityPolicy",
        valueType: "xs:string",
        value: "http://opcfoundation.org/UA/SecurityPolicy#Basic256Sha256",
      },
    );
    const list = find(face, "security").value as Json[];
    (list[0]!.value as { keys: { value: string }[] }).keys.at(-1)!.value = "opcua_channel_sc";
    const opcua = derive(aimc, [copy]).connections[2] as unknown as Json;
    assert.equal(opcua.securityMode, "SignAndEncrypt");
    assert.equal(opcua.securityPolicy, "Basic256Sha256");
    assert.equal(opcua.userTokenType, "Anonymous");

    (scheme.value as Json[])[0]!.value = "opcua-authentication";
    const withUser = derive(aimc, [copy], {
      ...PROCESSOR,
      credentials: { "opc.tcp://127.0.0.1:4840": [{ username: "operator", password: "pw" }] },
    }).connections[2] as unknown as Json;
    assert.equal(withUser.userTokenType, "UserName");
    assert.equal(withUser.username, "operator");
  });

  test("CertificateCredentials: the TLS client certificate of an https/mqtts base, the user certificate of an OPC UA authentication scheme (issue 18.7)", () => {
    const copy = clone(aid);
    find(find(copy, "InterfaceHTTP"), "base").value = "https://127.0.0.1:8443";
    find(find(copy, "InterfaceMQTT"), "base").value = "mqtts://127.0.0.1:8883";
    const opcuaScheme = find(find(copy, "InterfaceOPCUA"), "nosec_sc");
    (opcuaScheme.value as Json[])[0]!.value = "opcua-authentication";
    const keyStore = { keyStoreType: "PKCS12", keyStorePath: "client.p12", keyStorePassword: "changeit" };
    const certificate = {
      "@class": "de.fraunhofer.iosb.ilt.faaast.service.submodeltemplate.aimc.config.CertificateCredentials",
      authenticationCertificate: keyStore,
    };
    const { connections, problems } = derive(aimc, [copy], {
      ...PROCESSOR,
      credentials: {
        "https://127.0.0.1:8443": [certificate],
        "mqtts://127.0.0.1:8883": [certificate],
        "opc.tcp://127.0.0.1:4840": [certificate],
      },
    });
    assert.deepEqual(problems, []);
    const [http, mqtt, opcua] = connections as unknown as Json[];
    assert.deepEqual(http!.clientCertificate, keyStore);
    assert.deepEqual(mqtt!.clientCertificate, keyStore);
    assert.equal(opcua!.userTokenType, "Certificate");
    assert.deepEqual(opcua!.authenticationCertificate, keyStore);
    // FA³ST main's opcuaSecurityBaseDir: where the derived connection keeps its PKI and key stores.
    const withDir = derive(aimc, [copy], {
      ...PROCESSOR,
      opcuaSecurityBaseDir: { "opc.tcp://127.0.0.1:4840": "./opcua-pki" },
    }).connections[2] as unknown as Json;
    assert.equal(withDir.securityBaseDir, "./opcua-pki");
    // Over plain http the certificate has nowhere to go: said, not silently dropped.
    const plain = derive(aimc, [aid], { ...PROCESSOR, credentials: { "http://127.0.0.1:8081": [certificate] } });
    assert.match(
      plain.problems.join("\n"),
      /CertificateCredentials for base "http:\/\/127\.0\.0\.1:8081" are not used/,
    );
  });
});
