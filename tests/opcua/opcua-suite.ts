/**
 * The OPC UA black-box suite, run against embedded and distributed mode: a real OPC UA client over
 * TCP next to a real HTTPS client, on the same model.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  type Argument,
  AttributeIds,
  ClientSubscription,
  DataType,
  type DataValue,
  NodeClass,
  NodeId,
  NodeIdType,
  StatusCodes,
  TimestampsToReturn,
  Variant,
  VariantArrayType,
} from "node-opcua";
import { b64 } from "../test-support/http-client.ts";
import { connectOpcua, type OpcuaTestClient } from "../test-support/opcua-client.ts";
import {
  EXPECTED_READ,
  elementNode,
  identifiableNode,
  SHELL,
  TYPED_PROPERTIES,
  VALUES_SUBMODEL,
  WRITES,
} from "../test-support/opcua-model.ts";
import type { Mode } from "../test-support/system.ts";
import { type OpcuaSystem, startOpcuaSystem } from "./opcua-system.ts";

const node = (path: string, sub = "Value") => elementNode(VALUES_SUBMODEL, path, sub);
const element = (path: string) => elementNode(VALUES_SUBMODEL, path);
const elementUrl = (path: string) => `/submodels/${b64(VALUES_SUBMODEL)}/submodel-elements/${path}`;

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) assert.fail(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function opcuaSuite(mode: Mode, options: { opcuaGateways?: number } = {}): void {
  let system: OpcuaSystem;
  let opcua: OpcuaTestClient;

  before(async () => {
    system = await startOpcuaSystem(mode, options);
    opcua = system.opcua[0];
  });

  after(async () => {
    await system?.stop();
  });

  const httpElement = async (path: string) => {
    // Blob bytes are left out by default (extent=withoutBlobValue).
    const response = await system.http.get(`${elementUrl(path)}?extent=withBlobValue`);
    assert.equal(response.status, 200, response.text);
    return response.json() as Record<string, unknown>;
  };

  test(`${mode}: browse AASEnvironment down to the value nodes`, async () => {
    const environment = await opcua.children("AASEnvironment");
    assert.ok(
      environment.has("Pump") && environment.has("Values") && environment.has("ConceptDescriptions"),
      [...environment.keys()].join(", "),
    );
    const submodel = await opcua.children(identifiableNode(VALUES_SUBMODEL));
    assert.equal(submodel.get("TInt")?.nodeClass, NodeClass.Object);
    const property = await opcua.children(element("TInt"));
    assert.deepEqual([...property.keys()].sort(), ["Value", "ValueType"]);
    assert.equal(
      (await opcua.read(identifiableNode(SHELL, "AssetInformation/GlobalAssetId"))).value.value,
      "urn:twinport:test:asset:pump",
    );
  });

  test(`${mode}: every datatype reads as the §4.5 table says and writes through to HTTP`, async () => {
    for (const [valueType, [idShort, lexical]] of Object.entries(TYPED_PROPERTIES)) {
      const [dataType, expected] = EXPECTED_READ[valueType];
      const read = await opcua.read(node(idShort));
      assert.equal(DataType[read.value.dataType], DataType[dataType], `${valueType}: data type`);
      assert.deepEqual(read.value.value, expected, `${valueType}: value`);
      assert.equal((await httpElement(idShort)).value, lexical);
      const [value, written] = WRITES[valueType];
      const status = await opcua.write(node(idShort), { dataType, arrayType: VariantArrayType.Scalar, value });
      assert.equal(status.name, "Good", `${valueType}: write`);
      // The write answered after the model changed: HTTP reads it right away.
      assert.equal((await httpElement(idShort)).value, written, `${valueType}: HTTP GET after the OPC UA write`);
    }
    assert.equal((await opcua.write(node("Temperature", "Max"), { dataType: DataType.Int32, value: 8 })).name, "Good");
    assert.equal((await httpElement("Temperature")).max, "8");
    assert.equal(
      (await opcua.write(node("Firmware"), { dataType: DataType.ByteString, value: Buffer.from("v2") })).name,
      "Good",
    );
    assert.equal((await httpElement("Firmware")).value, Buffer.from("v2").toString("base64"));
    assert.equal(
      (await opcua.write(node("Motor", "GlobalAssetId"), { dataType: DataType.String, value: "urn:x:motor" })).name,
      "Good",
    );
    assert.equal((await httpElement("Motor")).globalAssetId, "urn:x:motor");
  });

  test(`${mode}: wrong-type and out-of-range writes are refused and change nothing`, async () => {
    const cases: [string, string, Parameters<OpcuaTestClient["write"]>[1], string][] = [
      ["TDouble", "Value", { dataType: DataType.String, value: "1.0" }, "BadTypeMismatch"],
      ["TUnsignedShort", "Value", { dataType: DataType.Int32, value: 5 }, "BadTypeMismatch"],
      ["TPositiveInteger", "Value", { dataType: DataType.String, value: "-3" }, "BadOutOfRange"],
      ["TDateTime", "Value", { dataType: DataType.String, value: "yesterday" }, "BadTypeMismatch"],
      ["Motor", "EntityType", { dataType: DataType.Int32, value: 2 }, "BadOutOfRange"],
      ["TInt", "ValueType", { dataType: DataType.Int32, value: 1 }, "BadNotWritable"],
    ];
    for (const [path, sub, value, expected] of cases) {
      const before = await opcua.read(node(path, sub));
      const model = await httpElement(path);
      assert.equal((await opcua.write(node(path, sub), value)).name, expected, `${path}/${sub}`);
      assert.deepEqual((await opcua.read(node(path, sub))).value, before.value, `${path}/${sub}: node unchanged`);
      assert.deepEqual(await httpElement(path), model, `${path}/${sub}: model unchanged`);
    }
  });

  test(`${mode}: a write carrying a Bad status is refused (BadWriteNotSupported); one carrying timestamps is taken`, async () => {
    const target = opcua.nodeId(node("TInt"));
    const previous = (await httpElement("TInt")).value;
    const bad = await opcua.session.write({
      nodeId: target,
      attributeId: AttributeIds.Value,
      value: { value: new Variant({ dataType: DataType.Int32, value: 7 }), statusCode: StatusCodes.BadSensorFailure },
    });
    assert.equal(bad.name, "BadWriteNotSupported");
    assert.equal((await httpElement("TInt")).value, previous, "nothing written");
    // python-opcua sends a source timestamp with every write: it is taken (and the value's own time kept).
    const stamped = await opcua.session.write({
      nodeId: target,
      attributeId: AttributeIds.Value,
      value: {
        value: new Variant({ dataType: DataType.Int32, value: 7 }),
        sourceTimestamp: new Date(Date.UTC(2000, 0, 1)),
      },
    });
    assert.equal(stamped.name, "Good");
    assert.equal((await httpElement("TInt")).value, "7");
    assert.equal(
      (await system.http.request("PATCH", `${elementUrl("TInt")}/$value`, { body: JSON.stringify(previous) })).status,
      204,
    );
  });

  test(`${mode}: a PUT that changes a Property's valueType keeps monitored items on its Value node`, async () => {
    const monitor = await opcua.monitor(node("TInt"));
    try {
      await monitor.waitFor(() => true, 5000, "the initial value");
      const previous = await httpElement("TInt");
      const put = (valueType: string, value: string) =>
        system.http.request("PUT", elementUrl("TInt"), {
          body: JSON.stringify({ ...previous, valueType, value }),
        });
      assert.equal((await put("xs:long", "10")).status, 204);
      const changed = await monitor.waitFor((v) => v.value.dataType === DataType.Int64, 5000, "the xs:long value");
      assert.equal(changed.statusCode.name, "Good");
      assert.equal((await system.http.request("PATCH", `${elementUrl("TInt")}/$value`, { body: "11" })).status, 204);
      await monitor.waitFor(
        (v) => v.value.dataType === DataType.Int64 && String(v.value.value) === "0,11",
        5000,
        "the next value on the same monitored item",
      );
      assert.equal((await put(String(previous.valueType), String(previous.value))).status, 204);
      await monitor.waitFor((v) => v.value.dataType === DataType.Int32, 5000, "back to xs:int");
    } finally {
      await monitor.stop();
    }
  });

  test(`${mode}: HTTP PATCH $value reaches OPC UA subscribers of every gateway`, async () => {
    const monitors = await Promise.all(system.opcua.map((client) => client.monitor(node("TDouble"))));
    for (const monitor of monitors) await monitor.waitFor(() => true, 5000, "the initial value");
    const response = await system.http.request("PATCH", `${elementUrl("TDouble")}/$value`, { body: "42.5" });
    assert.equal(response.status, 204, response.text);
    for (const monitor of monitors) {
      await monitor.waitFor((value: DataValue) => value.value.value === 42.5, 5000, "the PATCHed value");
      await monitor.stop();
    }
  });

  test(`${mode}: every committed value reaches a subscriber whatever sampling interval it asks for`, async () => {
    // Common clients ask for a sampling interval equal to their publishing interval (-1), or for a
    // slow one: a 5 s timer sampler would fold these writes, 300 ms apart, into one or two values.
    const samplingIntervals = [5000, 1000, -1];
    const monitors = [];
    for (const client of system.opcua) {
      for (const samplingInterval of samplingIntervals)
        monitors.push(await client.monitor(node("TInt"), { publishingInterval: 100, samplingInterval, queueSize: 10 }));
    }
    for (const monitor of monitors) await monitor.waitFor(() => true, 10_000, "the initial value");
    const written = [7001, 7002, 7003, 7004, 7005];
    for (const value of written) {
      const response = await system.http.request("PATCH", `${elementUrl("TInt")}/$value`, { body: String(value) });
      assert.equal(response.status, 204, response.text);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    for (const [i, monitor] of monitors.entries()) {
      const asked = `sampling interval ${samplingIntervals[i % samplingIntervals.length]}`;
      await monitor.waitFor(
        (value: DataValue) => value.value.value === written.at(-1),
        10_000,
        `the last value (${asked})`,
      );
      const received = monitor.values
        .map((value) => value.value.value as number)
        .filter((value) => written.includes(value));
      assert.deepEqual(received, written, `${asked}: every value, in order`);
      // Values are reported on commit, not sampled: the server says so with a revised interval of 0.
      assert.equal(monitor.revised.samplingInterval, 0, `${asked}: revised sampling interval`);
      assert.equal(monitor.revised.queueSize, 10, `${asked}: revised queue size`);
      await monitor.stop();
    }
  });

  test(`${mode}: a commit's change reaches an idle subscription at once, not at its next publishing cycle`, async () => {
    // A subscription that sent nothing for a whole publishing interval publishes a change in the turn
    // its commit arrives (ADR 0028). Each PATCH here comes 2.1 s after the last notification, which
    // went out at a tick of the 2 s publishing timer: waiting for the next tick would take ~1.9 s.
    const monitor = await opcua.monitor(node("TInt"), { publishingInterval: 2000, samplingInterval: -1 });
    assert.equal(monitor.revised.publishingInterval, 2000);
    await monitor.waitFor(() => true, 10_000, "the initial value");
    const took: number[] = [];
    for (const value of [8101, 8102, 8103]) {
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const started = Date.now();
      const received = monitor.waitFor((v: DataValue) => v.value.value === value, 10_000, `value ${value}`);
      const response = await system.http.request("PATCH", `${elementUrl("TInt")}/$value`, { body: String(value) });
      assert.equal(response.status, 204, response.text);
      await received;
      took.push(Date.now() - started);
    }
    assert.ok(
      took.every((ms) => ms < 1000),
      `PATCH → notification took ${took.join(", ")} ms (publishing interval 2000 ms)`,
    );
    await monitor.stop();
  });

  test(`${mode}: an OPC UA write on one gateway shows on every gateway`, async () => {
    assert.equal(
      (await opcua.write(node("TString"), { dataType: DataType.String, value: "from opc ua" })).name,
      "Good",
    );
    for (const client of system.opcua) {
      await eventually(
        async () => (await client.read(node("TString"))).value.value === "from opc ua",
        "the written value on every gateway",
      );
    }
  });

  test(`${mode}: values written in a non-canonical form read back canonical over OPC UA (issue 13)`, async () => {
    // xs:integer and xs:decimal are Strings in OPC UA: the stored lexical form is what a client reads.
    const cases: [string, string, string][] = [
      ["TInteger", '"-0"', "0"],
      ["TInteger", '"+00042"', "42"],
      ["TDecimal", '"+007.50"', "7.50"],
      ["TDecimal", "-0.0", "0.0"],
    ];
    for (const [idShort, body, canonical] of cases) {
      const response = await system.http.request("PATCH", `${elementUrl(idShort)}/$value`, { body });
      assert.equal(response.status, 204, response.text);
      for (const client of system.opcua) {
        await eventually(
          async () => (await client.read(node(idShort))).value.value === canonical,
          `${idShort} ${body} reads ${canonical}`,
        );
      }
      assert.equal((await httpElement(idShort)).value, canonical);
    }
    const zero = await system.http.request("PATCH", `${elementUrl("TInt")}/$value`, { body: "-0" });
    assert.equal(zero.status, 204, zero.text);
    await eventually(async () => (await opcua.read(node("TInt"))).value.value === 0, "TInt reads 0");
    assert.equal((await httpElement("TInt")).value, "0");
    for (const [idShort, lexical] of [
      ["TInteger", TYPED_PROPERTIES["xs:integer"]![1]],
      ["TDecimal", TYPED_PROPERTIES["xs:decimal"]![1]],
      ["TInt", "5000"],
    ] as const) {
      assert.equal(
        (await system.http.request("PATCH", `${elementUrl(idShort)}/$value`, { body: JSON.stringify(lexical) })).status,
        204,
      );
    }
  });

  test(`${mode}: an xs:dateTime outside OPC UA's DateTime range reads as its bound; a null DateTime written clears it`, async () => {
    // Part 6 §5.2.2.5: at or before 1601-01-01 is DateTime 0, from 9999-12-31 23:59:59 the largest.
    const cases: [string, string][] = [
      ["1500-01-01T00:00:00Z", "1601-01-01T00:00:00.000Z"],
      ["12024-01-01T00:00:00Z", "9999-12-31T23:59:59.000Z"],
    ];
    for (const [lexical, read] of cases) {
      const response = await system.http.request("PATCH", `${elementUrl("TDateTime")}/$value`, {
        body: JSON.stringify(lexical),
      });
      assert.equal(response.status, 204, response.text);
      await eventually(
        async () => ((await opcua.read(node("TDateTime"))).value.value as Date | null)?.toISOString() === read,
        `${lexical} reads ${read}`,
      );
      assert.equal((await httpElement("TDateTime")).value, lexical, "the model keeps its own value");
    }
    const status = await opcua.write(node("TDateTime"), { dataType: DataType.DateTime, value: null });
    assert.equal(status.name, "Good");
    assert.equal((await httpElement("TDateTime")).value, undefined, "a null DateTime clears, as a Null Variant does");
    const restore = await system.http.request("PATCH", `${elementUrl("TDateTime")}/$value`, {
      body: JSON.stringify(TYPED_PROPERTIES["xs:dateTime"]![1]),
    });
    assert.equal(restore.status, 204, restore.text);
  });

  test(`${mode}: a request naming a session the server does not have (timed out, or before a restart) is answered at once`, async () => {
    const pki = mkdtempSync(join(tmpdir(), "twinport-opcua-stale-session-"));
    const client = await connectOpcua(system.opcuaUrls[0]!, pki);
    const session = client.session as unknown as { authenticationToken: NodeId };
    const own = session.authenticationToken;
    try {
      // What a client still holds after its session timed out on the server, or the server restarted.
      session.authenticationToken = new NodeId(NodeIdType.BYTESTRING, Buffer.alloc(32, 7), 0);
      const started = Date.now();
      // Answered BadSessionIdInvalid (the client may then make a new session and read Good); it was
      // never answered, so the client waited out its 15 s transaction timeout on every request.
      const outcome = await client.session.read({ nodeId: "ns=0;i=2256" }).then(
        (value) => value.statusCode.name,
        (error: Error) => error.message,
      );
      assert.ok(Date.now() - started < 5_000, `answered after ${Date.now() - started} ms: ${outcome}`);
      assert.match(outcome, /Good|BadSessionIdInvalid/);
    } finally {
      session.authenticationToken = own;
      await client.close();
      rmSync(pki, { recursive: true, force: true });
    }
  });

  test(`${mode}: one session watches one node with at most 16 monitored items; more are refused whole (BadTooManyMonitoredItems), other nodes stay watchable`, async () => {
    const pki = mkdtempSync(join(tmpdir(), "twinport-opcua-items-per-node-"));
    const client = await connectOpcua(system.opcuaUrls[0]!, pki);
    const subscription = ClientSubscription.create(client.session, {
      requestedPublishingInterval: 100,
      requestedMaxKeepAliveCount: 100,
      requestedLifetimeCount: 1000,
      maxNotificationsPerPublish: 0,
      publishingEnabled: true,
    });
    const items = (local: string, count: number) =>
      Array.from({ length: count }, () => ({ nodeId: client.nodeId(local), attributeId: AttributeIds.Value }));
    const create = (local: string, count: number) =>
      subscription
        .monitorItems(
          items(local, count),
          { samplingInterval: 0, queueSize: 1, discardOldest: true },
          TimestampsToReturn.Both,
        )
        .then(
          () => "created",
          (error: Error) => error.message,
        );
    try {
      assert.equal(await create(node("TInt"), 10), "created");
      // 10 + 7 on one node: the whole call is refused, none of it created.
      assert.match(await create(node("TInt"), 7), /BadTooManyMonitoredItems/);
      assert.equal(await create(node("TInt"), 6), "created", "up to 16 on the node");
      assert.match(await create(node("TInt"), 1), /BadTooManyMonitoredItems/);
      assert.equal(await create(node("TString"), 3), "created", "another node is watched as before");
    } finally {
      await subscription.terminate().catch(() => undefined);
      await client.close();
      rmSync(pki, { recursive: true, force: true });
    }
  });

  test(`${mode}: elements added and deleted over HTTP appear in and disappear from the address space`, async () => {
    const created = await system.http.request("POST", `/submodels/${b64(VALUES_SUBMODEL)}/submodel-elements`, {
      body: JSON.stringify({ modelType: "Property", idShort: "Added", valueType: "xs:int", value: "3" }),
    });
    assert.equal(created.status, 201, created.text);
    for (const client of system.opcua) {
      await eventually(async () => (await client.read(node("Added"))).value.value === 3, "the new node");
      assert.ok((await client.children(identifiableNode(VALUES_SUBMODEL))).has("Added"));
    }
    const deleted = await system.http.request("DELETE", elementUrl("Added"));
    assert.equal(deleted.status, 204, deleted.text);
    for (const client of system.opcua)
      await eventually(async () => !(await client.exists(node("Added"))), "the node removed");
  });

  test(`${mode}: an Operation's method node carries its arguments`, async () => {
    const method = node("Start", "Invoke");
    const children = await opcua.children(element("Start"));
    assert.equal(children.get("Start")?.nodeClass, NodeClass.Method);
    const inputs = (await opcua.read(`${method}/InputArguments`)).value.value as Argument[];
    assert.deepEqual(
      inputs.map((argument) => [argument.name, argument.dataType.value]),
      [
        ["Speed", DataType.Int32],
        ["Label", DataType.String],
      ],
    );
    const outputs = (await opcua.read(`${method}/OutputArguments`)).value.value as Argument[];
    assert.deepEqual(
      outputs.map((argument) => [argument.name, argument.dataType.value]),
      [["Ok", DataType.Boolean]],
    );
  });
}
