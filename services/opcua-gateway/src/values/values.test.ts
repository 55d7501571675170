import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { DataType, type DataValue, LocalizedText, NodeId, NodeIdType, StatusCodes, VariantArrayType } from "node-opcua";
import type { OpcuaTestClient } from "../../../../tests/test-support/opcua-client.ts";
import { type InProcessGateway, startInProcessGateway } from "../../../../tests/test-support/opcua-in-process.ts";
import {
  EXPECTED_READ,
  elementNode,
  opcuaTestEnvironment,
  TYPED_PROPERTIES,
  VALUES_SUBMODEL,
  WRITES,
} from "../../../../tests/test-support/opcua-model.ts";

// Reads and writes of every writable kind and datatype over a real OPC UA connection, against the
// real engine: what the client sees, what the store holds afterwards, and what a rejected write leaves.

let system: InProcessGateway;
let opcua: OpcuaTestClient;

before(async () => {
  system = await startInProcessGateway(opcuaTestEnvironment());
  opcua = await system.connect(await system.startGateway());
});

after(async () => {
  await system.stop();
});

const node = (path: string, sub = "Value") => elementNode(VALUES_SUBMODEL, path, sub);

async function stored(path: string): Promise<Record<string, unknown>> {
  const reply = await system.store.execute({
    type: "GetSubmodelElementByPath",
    params: { submodelId: VALUES_SUBMODEL, idShortPath: path },
  });
  assert.ok(reply.ok, JSON.stringify(reply));
  return reply.value as Record<string, unknown>;
}

function assertValue(value: DataValue, dataType: DataType, expected: unknown, what: string) {
  assert.equal(value.statusCode.name, "Good", `${what}: ${value.statusCode.toString()}`);
  assert.equal(DataType[value.value.dataType], DataType[dataType], `${what}: data type`);
  assert.deepEqual(value.value.value, expected, `${what}: value`);
}

test("every Property reads with the data type of the §4.5 table, and ValueType names the xsd type", async () => {
  const xsdNames = ((await opcua.read(node("TInt", "ValueType"))).value.value === 16) as boolean;
  assert.ok(xsdNames, "xs:int is entry 16 of AASDataTypeDefXsdDataType");
  for (const [valueType, [idShort]] of Object.entries(TYPED_PROPERTIES)) {
    const [dataType, expected] = EXPECTED_READ[valueType];
    assertValue(await opcua.read(node(idShort)), dataType, expected, `${valueType} ${idShort}`);
    const declared = await opcua.read(node(idShort), 14 /* DataType attribute */);
    assert.equal((declared.value.value as NodeId).value, dataType, `${valueType}: the node's DataType attribute`);
  }
  // A Property without value reads as null.
  const empty = await opcua.read(node("Empty"));
  assert.equal(empty.value.dataType, DataType.Null);
});

test("writing every datatype changes the model through the store and answers after the node shows it", async () => {
  for (const [valueType, [idShort]] of Object.entries(TYPED_PROPERTIES)) {
    const [dataType] = EXPECTED_READ[valueType];
    const [value, lexical] = WRITES[valueType];
    const status = await opcua.write(node(idShort), { dataType, arrayType: VariantArrayType.Scalar, value });
    assert.equal(status.name, "Good", `${valueType}: ${status.toString()}`);
    assert.equal((await stored(idShort)).value, lexical, `${valueType}: stored lexical value`);
    // Answered after our own event reached the node: no wait needed.
    const readBack = await opcua.read(node(idShort));
    assert.deepEqual(
      readBack.value.value,
      dataType === DataType.Float ? Math.fround(value as number) : value,
      `${valueType}: read back`,
    );
  }
});

test("Range bounds, Blob bytes, MultiLanguageProperty texts, Entity type and asset id are writable", async () => {
  assert.equal((await opcua.write(node("Temperature", "Min"), { dataType: DataType.Int32, value: 2 })).name, "Good");
  assert.equal((await opcua.write(node("Temperature", "Max"), { dataType: DataType.Int32, value: 9 })).name, "Good");
  assert.deepEqual([(await stored("Temperature")).min, (await stored("Temperature")).max], ["2", "9"]);

  assert.equal(
    (await opcua.write(node("Firmware"), { dataType: DataType.ByteString, value: Buffer.from("bye") })).name,
    "Good",
  );
  assert.equal((await stored("Firmware")).value, Buffer.from("bye").toString("base64"));
  assert.deepEqual((await opcua.read(node("Firmware"))).value.value, Buffer.from("bye"));

  const texts = [
    new LocalizedText({ locale: "en", text: "new pump" }),
    new LocalizedText({ locale: "fr", text: "pompe" }),
  ];
  assert.equal(
    (
      await opcua.write(node("Name"), {
        dataType: DataType.LocalizedText,
        arrayType: VariantArrayType.Array,
        value: texts,
      })
    ).name,
    "Good",
  );
  assert.deepEqual((await stored("Name")).value, [
    { language: "en", text: "new pump" },
    { language: "fr", text: "pompe" },
  ]);

  assert.equal(
    (
      await opcua.write(node("Motor", "GlobalAssetId"), {
        dataType: DataType.String,
        value: "urn:twinport:test:asset:motor-2",
      })
    ).name,
    "Good",
  );
  assert.equal((await stored("Motor")).globalAssetId, "urn:twinport:test:asset:motor-2");
  assert.equal((await opcua.write(node("Motor", "EntityType"), { dataType: DataType.Int32, value: 1 })).name, "Good");
  assert.equal((await stored("Motor")).entityType, "SelfManagedEntity");
  // EntityType both ways with single-node writes (AASd-014 refused each of them alone): co-managed
  // takes the asset ids with it; an asset id makes the entity self-managed again.
  assert.equal((await opcua.write(node("Motor", "EntityType"), { dataType: DataType.Int32, value: 0 })).name, "Good");
  const coManaged = await stored("Motor");
  assert.deepEqual(
    [coManaged.entityType, coManaged.globalAssetId, coManaged.specificAssetIds],
    ["CoManagedEntity", undefined, undefined],
  );
  assert.equal(
    (await opcua.write(node("Motor", "GlobalAssetId"), { dataType: DataType.String, value: "urn:asset:again" })).name,
    "Good",
  );
  const selfManaged = await stored("Motor");
  assert.deepEqual([selfManaged.entityType, selfManaged.globalAssetId], ["SelfManagedEntity", "urn:asset:again"]);
});

test("Keys of ReferenceElement and RelationshipElement are writable as AASKeyDataType structures", async () => {
  const keyType = new NodeId(NodeIdType.NUMERIC, 3005, opcua.ns);
  const key = (type: number, value: string) => opcua.session.constructExtensionObject(keyType, { type, value });
  const GLOBAL_REFERENCE = 11;
  const SUBMODEL = 20;
  const PROPERTY = 15;

  const external = [await key(GLOBAL_REFERENCE, "https://example.org/other")];
  assert.equal(
    (
      await opcua.write(node("Link", "Value/Keys"), {
        dataType: DataType.ExtensionObject,
        arrayType: VariantArrayType.Array,
        value: external,
      })
    ).name,
    "Good",
  );
  assert.deepEqual((await stored("Link")).value, {
    type: "ExternalReference",
    keys: [{ type: "GlobalReference", value: "https://example.org/other" }],
  });
  const keys = (await opcua.read(node("Link", "Value/Keys"))).value.value as { type: number; value: string }[];
  assert.deepEqual(
    keys.map((k) => [k.type, k.value]),
    [[GLOBAL_REFERENCE, "https://example.org/other"]],
  );

  const model = [await key(SUBMODEL, VALUES_SUBMODEL), await key(PROPERTY, "TDouble")];
  assert.equal(
    (
      await opcua.write(node("Rel", "Second/Keys"), {
        dataType: DataType.ExtensionObject,
        arrayType: VariantArrayType.Array,
        value: model,
      })
    ).name,
    "Good",
  );
  assert.deepEqual((await stored("Rel")).second, {
    type: "ModelReference",
    keys: [
      { type: "Submodel", value: VALUES_SUBMODEL },
      { type: "Property", value: "TDouble" },
    ],
  });
});

test("wrong-type and out-of-range writes get a Bad status and leave node and model untouched", async () => {
  const keyType = new NodeId(NodeIdType.NUMERIC, 3005, opcua.ns);
  const rejected: [string, string, Parameters<OpcuaTestClient["write"]>[1], string][] = [
    ["TDouble", "Value", { dataType: DataType.Int32, value: 5 }, "BadTypeMismatch"],
    ["TBoolean", "Value", { dataType: DataType.String, value: "true" }, "BadTypeMismatch"],
    [
      "TInt",
      "Value",
      { dataType: DataType.Int32, arrayType: VariantArrayType.Array, value: [1, 2] },
      "BadTypeMismatch",
    ],
    ["TLong", "Value", { dataType: DataType.Int32, value: 1 }, "BadTypeMismatch"],
    ["TPositiveInteger", "Value", { dataType: DataType.String, value: "0" }, "BadOutOfRange"],
    ["TDecimal", "Value", { dataType: DataType.String, value: "abc" }, "BadOutOfRange"],
    ["TDate", "Value", { dataType: DataType.String, value: "2024-13-45" }, "BadOutOfRange"],
    ["Motor", "EntityType", { dataType: DataType.Int32, value: 7 }, "BadOutOfRange"],
    [
      "Name",
      "Value",
      {
        dataType: DataType.LocalizedText,
        arrayType: VariantArrayType.Array,
        value: [new LocalizedText({ text: "no language" })],
      },
      "BadOutOfRange",
    ],
    [
      "Link",
      "Value/Keys",
      {
        dataType: DataType.ExtensionObject,
        arrayType: VariantArrayType.Array,
        value: [await opcua.session.constructExtensionObject(keyType, { type: 99, value: "x" })],
      },
      "BadOutOfRange",
    ],
    ["Rel", "First/Keys", { dataType: DataType.String, value: "x" }, "BadTypeMismatch"],
    ["Firmware", "Value", { dataType: DataType.String, value: "x" }, "BadTypeMismatch"],
    // Metadata is read-only (spec §4.5): File values, value types, content types.
    ["Manual", "Value", { dataType: DataType.String, value: "/other" }, "BadNotWritable"],
    ["TInt", "ValueType", { dataType: DataType.Int32, value: 0 }, "BadNotWritable"],
    ["Firmware", "ContentType", { dataType: DataType.String, value: "text/plain" }, "BadNotWritable"],
  ];
  for (const [path, sub, value, expected] of rejected) {
    const nodeBefore = await opcua.read(node(path, sub));
    const modelBefore = await stored(path);
    const status = await opcua.write(node(path, sub), value);
    assert.equal(status.name, expected, `${path}/${sub}`);
    const nodeAfter = await opcua.read(node(path, sub));
    assert.deepEqual(nodeAfter.value, nodeBefore.value, `${path}/${sub}: the node kept its value`);
    assert.deepEqual(await stored(path), modelBefore, `${path}/${sub}: the model is unchanged`);
  }
});

test("values inside Entity statements, annotations and lists are written by their idShortPath", async () => {
  assert.equal((await opcua.write(node("Motor.Power"), { dataType: DataType.Double, value: 2.5 })).name, "Good");
  assert.equal((await stored("Motor.Power")).value, "2.5");
  assert.equal(
    (await opcua.write(node("AnnotatedRel.Note"), { dataType: DataType.String, value: "noted" })).name,
    "Good",
  );
  assert.equal((await stored("AnnotatedRel.Note")).value, "noted");
  assert.equal((await opcua.write(node("Tags[1]"), { dataType: DataType.String, value: "B" })).name, "Good");
  assert.equal((await stored("Tags[1]")).value, "B");
  assert.equal((await opcua.read(node("Tags[1]"))).value.value, "B");
});

test("writing Null clears a Property value (spec §4.4: null means absent)", async () => {
  assert.equal((await opcua.write(node("TInt"), { dataType: DataType.Null })).name, "Good");
  assert.equal((await stored("TInt")).value, undefined);
  assert.equal((await opcua.read(node("TInt"))).value.dataType, DataType.Null);
  assert.equal((await opcua.write(node("TInt"), { dataType: DataType.Int32, value: 42 })).name, "Good");
  assert.equal((await stored("TInt")).value, "42");
});

test("writes reach the store with origin opcua, through the same command as HTTP PATCH $value", async () => {
  const origins: (string | undefined)[] = [];
  const subscription = await system.bus.subscribe({ onEvent: (event) => origins.push(event.origin) });
  try {
    assert.equal((await opcua.write(node("TString"), { dataType: DataType.String, value: "via opc ua" })).name, "Good");
    assert.deepEqual(origins, ["opcua"]);
  } finally {
    await subscription.unsubscribe();
  }
  assert.equal(StatusCodes.Good.name, "Good");
});
