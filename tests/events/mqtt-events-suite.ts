/**
 * MQTT publishing of change events, black-box, in either mode (docs/events-mqtt.md): real
 * processes through the `twinport` CLI, a real mosquitto, a real mqtt.js subscriber. Embedded: one
 * process configured with FA³ST's MessageBusMqtt (as FA³ST writes it). Distributed: Redis, NATS, two
 * model-store replicas whose NATS bus entry has an `mqtt` object, an http-gateway and an
 * opcua-gateway. Writes go over HTTP and OPC UA; every change must arrive once per seq (a failover
 * may repeat some), in order, on FA³ST's topics with FA³ST's payload shapes. The engine runs
 * through the operations test launcher, so its operation events can be seen too.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { OPERATIONS_SUBMODEL_ID, operationsSubmodel } from "@twinport/shared/test-support";
import { eventually } from "../test-support/eventually.ts";
import { b64, createHttpClient, type HttpClient } from "../test-support/http-client.ts";
import { connectOpcua, DataType, type OpcuaTestClient } from "../test-support/opcua-client.ts";
import {
  freePort,
  type RunningMosquitto,
  type RunningServer,
  startMosquitto,
  startNats,
  startRedis,
} from "../test-support/servers.ts";
import { findCertificate, type Mode, REPO_ROOT, startTwinport, type TwinportProcess } from "../test-support/system.ts";
import { type EventSubscriber, type ReceivedEvent, subscribeEvents } from "./mqtt-subscriber.ts";

const FAAAST = "de.fraunhofer.iosb.ilt.faaast.service";
const PREFIX = "twinport-test/events/";
// The engine runs with the test operation providers (Add, …), to see operation events.
const LAUNCHER = join(REPO_ROOT, "tests/test-support/operations-launcher.ts");

export function mqttEventsSuite(mode: Mode): void {
  let redis: RunningServer | undefined;
  let nats: RunningServer | undefined;
  let broker: RunningMosquitto;
  let brokerPort: number;
  let stores: TwinportProcess[] = [];
  const others: TwinportProcess[] = [];
  let http: HttpClient;
  let opcua: OpcuaTestClient;
  let subscriber: EventSubscriber;
  const dirs: string[] = [];
  const brokerData = mkdtempSync(join(tmpdir(), "twinport-mqtt-events-broker-"));
  dirs.push(brokerData);
  const workDir = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `twinport-mqtt-events-${name}-`));
    dirs.push(dir);
    return dir;
  };
  const startBroker = () => startMosquitto({ port: brokerPort, persistenceDir: brokerData });

  before(async () => {
    brokerPort = await freePort();
    broker = await startBroker();
    // A persistent session (clean: false) that the broker keeps across its restart: what a
    // consumer that must not miss events does.
    subscriber = await subscribeEvents(broker.url, PREFIX, { clientId: `test-consumer-${mode}`, clean: false });
    const [httpPort, opcuaPort] = [await freePort(), await freePort()];
    const endpoints = [
      { "@class": `${FAAAST}.endpoint.http.HttpEndpoint`, port: httpPort, host: "127.0.0.1", sslEnabled: true },
      {
        "@class": `${FAAAST}.endpoint.opcua.OpcUaEndpoint`,
        tcpPort: opcuaPort,
        host: "127.0.0.1",
        hostname: "127.0.0.1",
        supportedSecurityPolicies: ["NONE"],
        secondsTillShutdown: 0,
      },
    ];
    let httpDir = "";
    const mqttSettings = { host: "127.0.0.1", port: brokerPort, topicPrefix: PREFIX };
    let config: Record<string, unknown>;
    if (mode === "embedded") {
      config = {
        endpoints,
        // As FA³ST documents MessageBusMqtt, with an external broker.
        messageBus: {
          "@class": `${FAAAST}.messagebus.mqtt.MessageBusMqtt`,
          useInternalServer: false,
          ...mqttSettings,
          clientId: "twinport-embedded-publisher",
        },
      };
    } else {
      redis = await startRedis();
      nats = await startNats();
      config = {
        endpoints,
        persistence: { "@class": "persistence.redis.PersistenceRedis", url: redis.url },
        messageBus: {
          "@class": "messagebus.nats.MessageBusNats",
          url: nats.url,
          mqtt: { ...mqttSettings, clientId: "twinport-publisher" },
        },
      };
    }
    const start = async (role: "embedded" | "model-store" | "http-gateway" | "opcua-gateway") => {
      const cwd = workDir(role);
      if (role === "embedded" || role === "http-gateway") httpDir = cwd;
      writeFileSync(join(cwd, "config.json"), JSON.stringify(config));
      const engine = role === "embedded" || role === "model-store";
      const started = await startTwinport({
        role,
        cwd,
        args: ["-c", "config.json", ...(engine ? ["--empty-model"] : [])],
        ...(engine ? { launcher: LAUNCHER } : {}),
      });
      // Kept at once: a sibling that fails to start must not leave this one running.
      (engine ? stores : others).push(started);
      return started;
    };
    if (mode === "embedded") {
      await start("embedded");
    } else {
      await Promise.all([start("model-store"), start("model-store")]);
      await Promise.all([start("http-gateway"), start("opcua-gateway")]);
    }
    http = createHttpClient(`https://127.0.0.1:${httpPort}/api/v3.0`, { ca: findCertificate(httpDir) });
    opcua = await connectOpcua(`opc.tcp://127.0.0.1:${opcuaPort}`, workDir("opcua-client"));
  });

  after(async () => {
    http?.close();
    await opcua?.close().catch(() => undefined);
    await subscriber?.close().catch(() => undefined);
    await Promise.all([...stores, ...others].map((p) => p.stop()));
    await broker?.stop();
    await nats?.stop();
    await redis?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const send = async (method: string, path: string, body?: unknown, expected = [200, 201, 204]) => {
    const response = await http.request(method, path, body === undefined ? {} : { body: JSON.stringify(body) });
    assert.ok(expected.includes(response.status), `${method} ${path}: ${response.status} ${response.text}`);
    return response;
  };

  /** The keys of a message's element reference as "Type:value" strings. */
  const keysOf = (message: ReceivedEvent) =>
    (message.body.element.keys as { type: string; value: string }[]).map((k) => `${k.type}:${k.value}`);

  const assertInOrder = (messages: ReceivedEvent[]) => {
    for (let i = 1; i < messages.length; i++)
      assert.equal(
        messages[i]!.seq,
        messages[i - 1]!.seq + 1,
        `seqs in order without gaps: ${messages.map((m) => m.seq)}`,
      );
  };

  test("every change (shells, submodels, elements; over HTTP and OPC UA) arrives in order on FA³ST's topics", async () => {
    const shellId = `urn:test:mqtt:shell:${randomUUID()}`;
    const submodelId = `urn:test:mqtt:submodel:${randomUUID()}`;
    const sm = `/submodels/${b64(submodelId)}`;
    const from = subscriber.messages.length;
    // The ready line names where the events go.
    for (const store of stores) assert.equal(store.details.mqtt, `tcp://127.0.0.1:${brokerPort} (topics ${PREFIX}…)`);

    await send("POST", "/shells", {
      modelType: "AssetAdministrationShell",
      id: shellId,
      idShort: "Pump",
      assetInformation: { assetKind: "Instance", globalAssetId: "urn:test:asset:pump" },
    });
    await send("PUT", `/shells/${b64(shellId)}`, {
      modelType: "AssetAdministrationShell",
      id: shellId,
      idShort: "PumpRenamed",
      assetInformation: { assetKind: "Instance", globalAssetId: "urn:test:asset:pump" },
    });
    await send("POST", "/submodels", {
      modelType: "Submodel",
      id: submodelId,
      idShort: "Operation",
      submodelElements: [
        { modelType: "Property", idShort: "Speed", valueType: "xs:int", value: "1" },
        { modelType: "SubmodelElementCollection", idShort: "Info" },
      ],
    });
    await send("POST", `${sm}/submodel-elements/Info`, {
      modelType: "Property",
      idShort: "Label",
      valueType: "xs:string",
      value: "first",
    });
    await send("PATCH", `${sm}/submodel-elements/Speed/$value`, "5");
    // Through the OPC UA endpoint, once it shows the new submodel.
    await eventually(
      async () => (await opcua.write(`${submodelId}|Speed/Value`, { dataType: DataType.Int32, value: 7 })).isGood(),
      (good) => good,
      "an OPC UA write of Speed",
    );
    await send("PUT", `${sm}/submodel-elements/Info.Label`, {
      modelType: "Property",
      idShort: "Label",
      valueType: "xs:string",
      value: "second",
    });
    await send("DELETE", `${sm}/submodel-elements/Info.Label`);
    await send("DELETE", sm);
    await send("DELETE", `/shells/${b64(shellId)}`);

    const messages = await subscriber.waitFor(10, from);
    assertInOrder(messages);
    const seen = messages.map((m) => [m.topic.slice(PREFIX.length), m.body["@type"], keysOf(m).join(" / ")]);
    assert.deepEqual(seen, [
      ["ElementCreateEventMessage", "ElementCreateEvent", `AssetAdministrationShell:${shellId}`],
      ["ElementUpdateEventMessage", "ElementUpdateEvent", `AssetAdministrationShell:${shellId}`],
      ["ElementCreateEventMessage", "ElementCreateEvent", `Submodel:${submodelId}`],
      [
        "ElementCreateEventMessage",
        "ElementCreateEvent",
        `Submodel:${submodelId} / SubmodelElement:Info / Property:Label`,
      ],
      ["ValueChangeEventMessage", "ValueChangeEvent", `Submodel:${submodelId} / Property:Speed`],
      ["ValueChangeEventMessage", "ValueChangeEvent", `Submodel:${submodelId} / Property:Speed`],
      [
        "ElementUpdateEventMessage",
        "ElementUpdateEvent",
        `Submodel:${submodelId} / SubmodelElement:Info / Property:Label`,
      ],
      // Our delete events do not carry the element: its key has the abstract type.
      [
        "ElementDeleteEventMessage",
        "ElementDeleteEvent",
        `Submodel:${submodelId} / SubmodelElement:Info / SubmodelElement:Label`,
      ],
      ["ElementDeleteEventMessage", "ElementDeleteEvent", `Submodel:${submodelId}`],
      ["ElementDeleteEventMessage", "ElementDeleteEvent", `AssetAdministrationShell:${shellId}`],
    ]);
    // FA³ST's payload shapes: a ModelReference; created/updated carry the element as `value`;
    // value changes carry newValue with modelType and dataType (oldValue: null, see docs).
    for (const message of messages) assert.equal(message.body.element.type, "ModelReference");
    assert.equal(messages[0]!.body.value.idShort, "Pump");
    assert.equal(messages[1]!.body.value.idShort, "PumpRenamed");
    assert.equal(messages[2]!.body.value.submodelElements.length, 2);
    assert.deepEqual(messages[3]!.body.value, {
      modelType: "Property",
      idShort: "Label",
      valueType: "xs:string",
      value: "first",
    });
    assert.deepEqual(messages[4]!.body.newValue, { modelType: "Property", dataType: "xs:int", value: 5 });
    assert.equal(messages[4]!.body.oldValue, null);
    assert.deepEqual(messages[5]!.body.newValue, { modelType: "Property", dataType: "xs:int", value: 7 });
    assert.equal(messages[6]!.body.value.value, "second");
    assert.ok(
      messages.every((m) => !m.retain),
      "retainValues is off by default",
    );
  });

  test("value changes of a collection and a MultiLanguageProperty carry FA³ST's typed values", async () => {
    const submodelId = `urn:test:mqtt:collection:${randomUUID()}`;
    const sm = `/submodels/${b64(submodelId)}`;
    const created = subscriber.messages.length;
    await send("POST", "/submodels", {
      modelType: "Submodel",
      id: submodelId,
      submodelElements: [
        {
          modelType: "SubmodelElementCollection",
          idShort: "Dimensions",
          value: [
            { modelType: "Property", idShort: "Width", valueType: "xs:double", value: "1" },
            { modelType: "Property", idShort: "Count", valueType: "xs:long", value: "1" },
          ],
        },
        { modelType: "MultiLanguageProperty", idShort: "Label", value: [{ language: "en", text: "old" }] },
      ],
    });
    await subscriber.waitFor(1, created);
    const from = created + 1;
    // Sent as text: a JavaScript number would round 2^53 + 1 before it left.
    const patched = await http.request("PATCH", `${sm}/submodel-elements/Dimensions/$value`, {
      body: '{"Width": 1.5, "Count": 9007199254740993}',
    });
    assert.equal(patched.status, 204, patched.text);
    await send("PATCH", `${sm}/submodel-elements/Label/$value`, [{ de: "deutsch" }, { en: "english" }]);
    const [collection, label] = await subscriber.waitFor(2, from);
    assert.equal(collection!.topic, `${PREFIX}ValueChangeEventMessage`);
    // FA³ST's SubmodelElementCollection value: `values` by idShort, each typed. A long beyond 2^53
    // keeps its exact digits as a string, as a Property's value does (docs/events-mqtt.md).
    assert.deepEqual(collection!.body.newValue, {
      modelType: "SubmodelElementCollection",
      values: {
        Width: { modelType: "Property", dataType: "xs:double", value: 1.5 },
        Count: { modelType: "Property", dataType: "xs:long", value: "9007199254740993" },
      },
    });
    assert.doesNotMatch(collection!.text, /isLosslessNumber/);
    assert.deepEqual(label!.body.newValue, {
      modelType: "MultiLanguageProperty",
      value: [{ de: "deutsch" }, { en: "english" }],
    });
    await send("DELETE", sm);
    await subscriber.waitFor(1, from + 2);
  });

  test("an operation's invoke and finish messages carry its arguments by idShort, typed as FA³ST's", async () => {
    const sm = `/submodels/${b64(OPERATIONS_SUBMODEL_ID)}`;
    const created = subscriber.messages.length;
    await send("POST", "/submodels", operationsSubmodel());
    await subscriber.waitFor(1, created);
    const from = created + 1;
    const prop = (idShort: string, valueType: string, value: string) => ({
      value: { modelType: "Property", idShort, valueType, value },
    });
    const invoked = await send("POST", `${sm}/submodel-elements/Add/invoke`, {
      inputArguments: [prop("a", "xs:int", "1"), prop("b", "xs:int", "2")],
      inoutputArguments: [prop("counter", "xs:int", "5")],
    });
    assert.equal(invoked.json().success, true, invoked.text);
    const [invoke, finish] = await subscriber.waitFor(2, from);
    const element = {
      type: "ModelReference",
      keys: [
        { type: "Submodel", value: OPERATIONS_SUBMODEL_ID },
        { type: "Operation", value: "Add" },
      ],
    };
    assert.equal(invoke!.topic, `${PREFIX}OperationInvokeEventMessage`);
    assert.deepEqual(invoke!.body, {
      "@type": "OperationInvokeEvent",
      element,
      input: {
        a: { modelType: "Property", dataType: "xs:int", value: 1 },
        b: { modelType: "Property", dataType: "xs:int", value: 2 },
      },
      inoutput: { counter: { modelType: "Property", dataType: "xs:int", value: 5 } },
    });
    assert.equal(finish!.topic, `${PREFIX}OperationFinishEventMessage`);
    assert.deepEqual(finish!.body, {
      "@type": "OperationFinishEvent",
      element,
      output: {
        sum: { modelType: "Property", dataType: "xs:int", value: 3 },
        // 19 digits: beyond 2^53, so its exact lexical form.
        big: { modelType: "Property", dataType: "xs:long", value: "1000000000000000001" },
      },
      inoutput: { counter: { modelType: "Property", dataType: "xs:int", value: 6 } },
    });
    await send("DELETE", sm);
    await subscriber.waitFor(1, from + 2);
  });

  test("a broker restart loses nothing: changes committed while it is down arrive afterwards, in order", async () => {
    const submodelId = `urn:test:mqtt:restart:${randomUUID()}`;
    const sm = `/submodels/${b64(submodelId)}`;
    await send("POST", "/submodels", {
      modelType: "Submodel",
      id: submodelId,
      submodelElements: [{ modelType: "Property", idShort: "Count", valueType: "xs:int", value: "0" }],
    });
    await eventually(
      () => subscriber.messages.some((m) => keysOf(m).join() === `Submodel:${submodelId}`),
      (seen) => seen,
      "the submodel's creation before the restart",
    );
    const before = subscriber.messages.length;
    await broker.stop();
    for (let i = 1; i <= 5; i++) await send("PATCH", `${sm}/submodel-elements/Count/$value`, String(i));
    broker = await startBroker();
    const messages = await subscriber.waitFor(5, before, 30_000);
    assertInOrder(messages);
    assert.deepEqual(
      messages.map((m) => m.body.newValue?.value),
      [1, 2, 3, 4, 5],
    );
  });

  if (mode === "distributed") {
    test("killing the publishing model-store replica loses nothing: the other continues from the saved position", async () => {
      const publishes = (p: TwinportProcess) => /this replica publishes now/.test(readFileSync(p.logFile, "utf8"));
      const holder = await eventually(
        () => stores.find(publishes),
        (found) => found !== undefined,
        "a publishing replica",
      );
      const submodelId = `urn:test:mqtt:failover:${randomUUID()}`;
      const sm = `/submodels/${b64(submodelId)}`;
      const before = subscriber.messages.length;
      await send("POST", "/submodels", {
        modelType: "Submodel",
        id: submodelId,
        submodelElements: [{ modelType: "Property", idShort: "Count", valueType: "xs:int", value: "0" }],
      });
      await holder!.stop("SIGKILL");
      const survivor = stores.find((p) => p !== holder)!;
      // The gateways' commands go to the survivor; the publisher lease moves after about 5 s.
      for (let i = 1; i <= 20; i++) {
        await eventually(
          async () => (await http.request("PATCH", `${sm}/submodel-elements/Count/$value`, { body: String(i) })).status,
          (status) => status === 204 || status === 200,
          `write ${i} after the kill`,
        );
      }
      const last = Number((await http.get(`${sm}/submodel-elements/Count`)).json().value);
      assert.equal(last, 20);
      await eventually(
        () => subscriber.messages.slice(before).some((m) => m.body.newValue?.value === 20),
        (done) => done,
        "the last write's event",
        30_000,
      );
      assert.ok(publishes(survivor), "the survivor took the publishing over");
      const received = subscriber.messages.slice(before);
      // At least once: the new publisher starts from the last position saved after a broker
      // acknowledgement, so a consumer may see again what it saw just before the kill (seq not above
      // the highest it has). Those dropped, as a consumer does, the stream has no gap and no step back.
      let highest = received[0]!.seq - 1;
      const fresh: ReceivedEvent[] = [];
      for (const message of received) {
        if (message.seq <= highest) continue;
        assert.equal(message.seq, highest + 1, `no gap: ${received.map((m) => m.seq)}`);
        highest = message.seq;
        fresh.push(message);
      }
      const ours = fresh.filter((m) => m.body.element.keys[0].value === submodelId);
      assert.deepEqual(
        ours.map((m) => m.body.newValue?.value ?? m.body["@type"]),
        ["ElementCreateEvent", ...Array.from({ length: 20 }, (_, i) => i + 1)],
        JSON.stringify(received.map((m) => [m.seq, m.body["@type"], m.body.newValue?.value])),
      );
      stores = [survivor];
    });
  }
}
