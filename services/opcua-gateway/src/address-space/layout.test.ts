import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Argument, AttributeIds, DataType, NodeClass, VariantArrayType } from "node-opcua";
import type { OpcuaTestClient } from "../../../../tests/test-support/opcua-client.ts";
import { type InProcessGateway, startInProcessGateway } from "../../../../tests/test-support/opcua-in-process.ts";
import {
  CD_WITH_ID_SHORT,
  CD_WITHOUT_ID_SHORT,
  elementNode,
  identifiableNode,
  OTHER_SUBMODEL,
  opcuaTestEnvironment,
  SHELL,
  VALUES_SUBMODEL,
} from "../../../../tests/test-support/opcua-model.ts";

// The shape of the address space (docs/reference/opcua-mapping.md layout) as a client browses it, the Operation methods,
// and an endpoint with read-only profiles.

let system: InProcessGateway;
let opcua: OpcuaTestClient;
let readOnly: OpcuaTestClient;

before(async () => {
  system = await startInProcessGateway(opcuaTestEnvironment());
  opcua = await system.connect(await system.startGateway());
  readOnly = await system.connect(await system.startGateway(['endpoints[0].profiles=["SUBMODEL_READ","AAS_READ"]']));
});

after(async () => {
  await system.stop();
});

const names = async (local: string) => [...(await opcua.children(local)).keys()];

test("Objects/AASEnvironment holds shells, submodels (duplicate idShorts apart) and concept descriptions", async () => {
  const objects = await opcua.session.browse("ObjectsFolder");
  const environment = objects.references?.find((reference) => reference.browseName.name === "AASEnvironment");
  assert.ok(environment, "AASEnvironment under Objects");
  assert.equal(environment.nodeId.toString(), `ns=${opcua.ns};s=AASEnvironment`);

  const top = await opcua.children("AASEnvironment");
  assert.deepEqual([...top.keys()].sort(), ["ConceptDescriptions", "Pump", "Values"]);
  // Both submodels are called "Values": browsing by name shows one, the NodeIds tell them apart.
  const environmentRefs = await opcua.session.browse({
    nodeId: opcua.nodeId("AASEnvironment"),
    referenceTypeId: "HierarchicalReferences",
    includeSubtypes: true,
    resultMask: 63,
  });
  const ids = (environmentRefs.references ?? []).map((reference) => reference.nodeId.value).sort();
  assert.deepEqual(
    ids,
    [
      "AASEnvironment/ConceptDescriptions",
      identifiableNode(SHELL),
      identifiableNode(OTHER_SUBMODEL),
      identifiableNode(VALUES_SUBMODEL),
    ].sort(),
  );

  // A concept description without idShort is named by its id.
  assert.deepEqual((await names("AASEnvironment/ConceptDescriptions")).sort(), [CD_WITHOUT_ID_SHORT, "Speed"].sort());
  assert.equal((await opcua.read(identifiableNode(CD_WITHOUT_ID_SHORT, "Id"))).value.value, CD_WITHOUT_ID_SHORT);
  assert.equal((await opcua.read(identifiableNode(CD_WITH_ID_SHORT, "Id"))).value.value, CD_WITH_ID_SHORT);
});

test("elements hang below their submodel with NodeIds from the submodel id and the idShortPath", async () => {
  const submodel = await names(identifiableNode(VALUES_SUBMODEL));
  for (const expected of [
    "Id",
    "SemanticId",
    "ModelingKind",
    "TInt",
    "Temperature",
    "Firmware",
    "Manual",
    "Name",
    "Link",
    "Rel",
    "AnnotatedRel",
    "Motor",
    "Start",
    "Tags",
    "Group",
    "Pumping",
    "Changed",
  ]) {
    assert.ok(submodel.includes(expected), `${expected} in ${submodel.join(", ")}`);
  }
  // Same idShort in different parents: distinct nodes with distinct values.
  assert.equal((await opcua.read(elementNode(VALUES_SUBMODEL, "Group.Width", "Value"))).value.value, 1);
  assert.equal((await opcua.read(elementNode(VALUES_SUBMODEL, "Group.Inner.Width", "Value"))).value.value, 2);
  assert.equal((await opcua.read(elementNode(OTHER_SUBMODEL, "Width", "Value"))).value.value, 3);
  // List items are addressed by index and keep their order.
  assert.deepEqual(
    (await names(elementNode(VALUES_SUBMODEL, "Tags"))).filter((name) => name.startsWith("[")),
    ["[0]", "[1]", "[2]"],
  );
  assert.equal((await opcua.read(elementNode(VALUES_SUBMODEL, "Tags[2]", "Value"))).value.value, "c");
  // Entity statements and annotations are grouped below the element.
  assert.deepEqual(await names(elementNode(VALUES_SUBMODEL, "Motor", "Statement")), ["Power"]);
  assert.equal((await opcua.read(elementNode(VALUES_SUBMODEL, "Motor.Power", "Value"))).value.value, 1.5);
  assert.deepEqual(await names(elementNode(VALUES_SUBMODEL, "AnnotatedRel", "Annotation")), ["Note"]);
  // The kinds' type definitions: I4AAS where it has one, ours for v3-only kinds.
  const typeOf = async (local: string) => {
    const refs = await opcua.session.browse({
      nodeId: opcua.nodeId(local),
      referenceTypeId: "HasTypeDefinition",
      resultMask: 63,
    });
    return refs.references?.[0]?.browseName.name;
  };
  assert.equal(await typeOf(elementNode(VALUES_SUBMODEL, "TInt")), "AASPropertyType");
  assert.equal(await typeOf(elementNode(VALUES_SUBMODEL, "Tags")), "AASSubmodelElementListType");
  assert.equal(await typeOf(identifiableNode(VALUES_SUBMODEL)), "AASSubmodelType");
  assert.equal(await typeOf("AASEnvironment"), "AASEnvironmentType");
});

test("a shell shows its asset information and its submodel references, linked to the submodel nodes", async () => {
  assert.deepEqual((await names(identifiableNode(SHELL))).sort(), ["AssetInformation", "Id", "Submodels"]);
  assert.equal(
    (await opcua.read(identifiableNode(SHELL, "AssetInformation/GlobalAssetId"))).value.value,
    "urn:twinport:test:asset:pump",
  );
  assert.equal((await opcua.read(identifiableNode(SHELL, "AssetInformation/AssetKind"))).value.value, 1);
  const specific = (await opcua.read(identifiableNode(SHELL, "AssetInformation/SpecificAssetId"))).value.value as {
    name: string;
    value: string;
  }[];
  assert.deepEqual(
    specific.map((id) => [id.name, id.value]),
    [["serial", "S-1"]],
  );
  assert.deepEqual(await names(identifiableNode(SHELL, "Submodels")), [VALUES_SUBMODEL, OTHER_SUBMODEL]);
  const link = await opcua.session.browse({
    nodeId: opcua.nodeId(identifiableNode(SHELL, "Submodels/0")),
    referenceTypeId: "NonHierarchicalReferences",
    includeSubtypes: true,
    resultMask: 63,
  });
  assert.ok(
    link.references?.some((reference) => reference.nodeId.value === identifiableNode(VALUES_SUBMODEL)),
    "AASReference to the submodel node",
  );
});

test("metadata is read-only, value nodes are read/write", async () => {
  const accessLevel = async (local: string) =>
    (await opcua.read(local, AttributeIds.UserAccessLevel)).value.value as number;
  assert.equal(await accessLevel(elementNode(VALUES_SUBMODEL, "TInt", "Value")), 3);
  assert.equal(await accessLevel(elementNode(VALUES_SUBMODEL, "TInt", "ValueType")), 1);
  assert.equal(await accessLevel(identifiableNode(VALUES_SUBMODEL, "Id")), 1);
  assert.equal(await accessLevel(elementNode(VALUES_SUBMODEL, "Manual", "Value")), 1);
});

test("an Operation is an object with a method named after it, its arguments from the Property variables", async () => {
  const operation = elementNode(VALUES_SUBMODEL, "Start");
  const method = elementNode(VALUES_SUBMODEL, "Start", "Invoke");
  const children = await opcua.children(operation);
  assert.equal(children.get("Start")?.nodeClass, NodeClass.Method);
  assert.equal(children.get("Start")?.nodeId.value, method);
  const argumentsOf = async (name: string) => {
    const value = await opcua.read(`${method}/${name}`);
    assert.equal(value.value.arrayType, VariantArrayType.Array);
    return (value.value.value as Argument[]).map((argument) => [argument.name, argument.dataType.value]);
  };
  // In-out variables are not supported (spec §4.5); non-Property variables travel as ValueOnly JSON strings.
  assert.deepEqual(await argumentsOf("InputArguments"), [
    ["Speed", DataType.Int32],
    ["Label", DataType.String],
  ]);
  assert.deepEqual(await argumentsOf("OutputArguments"), [["Ok", DataType.Boolean]]);
  assert.equal((await opcua.read(method, AttributeIds.Executable)).value.value, true);
  const result = await opcua.call(operation, method, [
    { dataType: DataType.Int32, value: 5 },
    { dataType: DataType.String, value: "[]" },
  ]);
  // Invocation itself belongs to the operations issue: whatever runs it, no asset answers here.
  assert.ok(result.statusCode.isNotGood(), result.statusCode.toString());
});

test("an endpoint whose profiles are all *_READ has no writable value node and no executable method", async () => {
  const value = elementNode(VALUES_SUBMODEL, "TDouble", "Value");
  assert.equal((await readOnly.read(value, AttributeIds.UserAccessLevel)).value.value, 1);
  const before = await readOnly.read(value);
  assert.equal((await readOnly.write(value, { dataType: DataType.Double, value: 99 })).name, "BadNotWritable");
  assert.deepEqual((await readOnly.read(value)).value, before.value);
  const method = elementNode(VALUES_SUBMODEL, "Start", "Invoke");
  assert.equal((await readOnly.read(method, AttributeIds.Executable)).value.value, false);
  const result = await readOnly.call(elementNode(VALUES_SUBMODEL, "Start"), method, [
    { dataType: DataType.Int32, value: 5 },
    { dataType: DataType.String, value: "[]" },
  ]);
  assert.equal(result.statusCode.name, "BadNotExecutable");
});
