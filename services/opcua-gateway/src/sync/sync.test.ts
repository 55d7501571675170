import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ChangeEvent, CommandParams, CommandType } from "@twinport/shared";
import { BrowseDirection, DataType, type DataValue } from "node-opcua";
import type { OpcuaTestClient } from "../../../../tests/test-support/opcua-client.ts";
import { type InProcessGateway, startInProcessGateway } from "../../../../tests/test-support/opcua-in-process.ts";
import {
  elementNode,
  identifiableNode,
  opcuaTestEnvironment,
  SHELL,
  VALUES_SUBMODEL,
} from "../../../../tests/test-support/opcua-model.ts";

// Live sync: changes made through the store (as HTTP makes them) reach the address space by events,
// in order, with pushed data changes; lost events, heartbeats ahead and payload-less events are
// recovered from the store, and resyncs patch nodes in place so monitored items keep working.

/** What the relay between the engine and the gateways does with the next event. */
let nextEvent: "deliver" | "lose" | "strip-payload" | "as-string" = "deliver";
let system: InProcessGateway;
let opcua: OpcuaTestClient;

before(async () => {
  system = await startInProcessGateway(opcuaTestEnvironment(), {
    relay(event: ChangeEvent) {
      const action = nextEvent;
      nextEvent = "deliver";
      if (action === "lose") return undefined;
      if (action === "strip-payload") return { ...event, payload: undefined, payloadOmitted: true };
      // An event that no longer fits the nodes the gateway built (as after a missed retype).
      if (action === "as-string")
        return { ...event, payload: { ...(event.payload as object), valueType: "xs:string" } };
      return event;
    },
  });
  opcua = await system.connect(await system.startGateway());
});

after(async () => {
  await system.stop();
});

async function run<T extends CommandType>(type: T, params: CommandParams<T>): Promise<void> {
  const reply = await system.store.execute({ type, params, origin: "http" });
  assert.ok(reply.ok, `${type}: ${JSON.stringify(reply)}`);
}

const patchValue = (path: string, body: unknown) =>
  run("PatchSubmodelElementValueByPath", {
    submodelId: VALUES_SUBMODEL,
    idShortPath: path,
    body: JSON.stringify(body),
  });
const node = (path: string, sub?: string) => elementNode(VALUES_SUBMODEL, path, sub);
const valueIs = (expected: unknown) => (value: DataValue) => value.value.value === expected;

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) assert.fail(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test("a value changed through the store reaches a subscriber as a pushed data change", async () => {
  const monitor = await opcua.monitor(node("TDouble", "Value"));
  await monitor.waitFor(valueIs(0.25), 2000, "the initial value");
  const started = Date.now();
  await patchValue("TDouble", { TDouble: 7.5 });
  await monitor.waitFor(valueIs(7.5), 2000, "the new value");
  // Pushed at the next publishing cycle (10 ms requested), not sampled.
  assert.ok(Date.now() - started < 500, `took ${Date.now() - started} ms`);
  await monitor.stop();
});

test("value changes set a Property's and a Range's value nodes; one that no longer fits the node rebuilds it", async () => {
  await patchValue("Temperature", { Temperature: { min: 2, max: 20 } });
  await eventually(
    async () =>
      (await opcua.read(node("Temperature", "Min"))).value.value === 2 &&
      (await opcua.read(node("Temperature", "Max"))).value.value === 20,
    "Min 2 and Max 20",
  );
  // Value events take a short path that sets the value variables only (value-fast-path.ts); one whose
  // element no longer matches the node's data type must still be applied in full.
  nextEvent = "as-string";
  await patchValue("TDouble", { TDouble: 1.5 });
  await eventually(async () => (await opcua.read(node("TDouble", "Value"))).value.value === "1.5", "a String 1.5");
  assert.equal((await opcua.read(node("TDouble", "Value"))).value.dataType, DataType.String);
  await patchValue("TDouble", { TDouble: 0.25 });
  await eventually(async () => (await opcua.read(node("TDouble", "Value"))).value.value === 0.25, "the Double 0.25");
  assert.equal((await opcua.read(node("TDouble", "Value"))).value.dataType, DataType.Double);
});

test("elements created, replaced and deleted through the store appear, change and disappear", async () => {
  await run("PostSubmodelElement", {
    submodelId: VALUES_SUBMODEL,
    idShortPath: "Group",
    body: JSON.stringify({ modelType: "Property", idShort: "Height", valueType: "xs:int", value: "12" }),
  });
  assert.equal((await opcua.read(node("Group.Height", "Value"))).value.value, 12);

  await run("PutSubmodelElementByPath", {
    submodelId: VALUES_SUBMODEL,
    idShortPath: "Group.Height",
    body: JSON.stringify({ modelType: "Range", idShort: "Height", valueType: "xs:double", min: "1.5", max: "2.5" }),
  });
  assert.equal(await opcua.exists(node("Group.Height", "Value")), false);
  assert.equal((await opcua.read(node("Group.Height", "Max"))).value.value, 2.5);

  // A monitored item on a deleted node is told Bad_NodeIdUnknown (OPC 10000-4), not node-opcua's Bad_NodeIdInvalid.
  const watching = await opcua.monitor(node("Group.Height", "Max"));
  await watching.waitFor(valueIs(2.5), 2000, "the Max before the delete");
  await run("DeleteSubmodelElementByPath", { submodelId: VALUES_SUBMODEL, idShortPath: "Group.Height" });
  await watching.waitFor((value) => value.statusCode.name === "BadNodeIdUnknown", 2000, "BadNodeIdUnknown");
  await watching.stop();
  assert.equal(await opcua.exists(node("Group.Height")), false);
  assert.ok(!(await opcua.children(node("Group"))).has("Height"));
});

test("deleting a list item renumbers the items after it", async () => {
  await run("DeleteSubmodelElementByPath", { submodelId: VALUES_SUBMODEL, idShortPath: "Tags[0]" });
  assert.equal((await opcua.read(node("Tags[0]", "Value"))).value.value, "b");
  assert.equal((await opcua.read(node("Tags[1]", "Value"))).value.value, "c");
  assert.equal(await opcua.exists(node("Tags[2]")), false);
});

test("a list item appended or replaced appears at its index, the other items stay", async () => {
  await run("PostSubmodelElement", {
    submodelId: VALUES_SUBMODEL,
    idShortPath: "Tags",
    body: JSON.stringify({ modelType: "Property", valueType: "xs:string", value: "z" }),
  });
  assert.equal((await opcua.read(node("Tags[2]", "Value"))).value.value, "z");
  await run("PutSubmodelElementByPath", {
    submodelId: VALUES_SUBMODEL,
    idShortPath: "Tags[1]",
    body: JSON.stringify({ modelType: "Property", valueType: "xs:string", value: "y" }),
  });
  assert.deepEqual(
    await Promise.all([0, 1, 2].map(async (i) => (await opcua.read(node(`Tags[${i}]`, "Value"))).value.value)),
    ["b", "y", "z"],
  );
  await run("DeleteSubmodelElementByPath", { submodelId: VALUES_SUBMODEL, idShortPath: "Tags[2]" });
  assert.equal(await opcua.exists(node("Tags[2]")), false);
});

test("submodels, shells and concept descriptions created and deleted through the store come and go", async () => {
  const submodelId = "urn:twinport:test:submodel:new";
  await run("PostSubmodel", {
    body: JSON.stringify({
      modelType: "Submodel",
      id: submodelId,
      idShort: "Fresh",
      submodelElements: [{ modelType: "Property", idShort: "P", valueType: "xs:string", value: "x" }],
    }),
  });
  assert.equal((await opcua.read(elementNode(submodelId, "P", "Value"))).value.value, "x");
  assert.ok((await opcua.children("AASEnvironment")).has("Fresh"));

  // A shell referring to it is linked to its node.
  const shellId = "urn:twinport:test:aas:new";
  await run("PostAssetAdministrationShell", {
    body: JSON.stringify({
      modelType: "AssetAdministrationShell",
      id: shellId,
      idShort: "Fresh",
      assetInformation: { assetKind: "Type", globalAssetId: "urn:twinport:test:asset:type" },
      submodels: [{ type: "ModelReference", keys: [{ type: "Submodel", value: submodelId }] }],
    }),
  });
  assert.equal((await opcua.read(identifiableNode(shellId, "AssetInformation/AssetKind"))).value.value, 0);
  const links = await opcua.session.browse({
    nodeId: opcua.nodeId(identifiableNode(shellId, "Submodels/0")),
    referenceTypeId: "NonHierarchicalReferences",
    includeSubtypes: true,
    browseDirection: BrowseDirection.Forward,
  });
  assert.ok(links.references?.some((reference) => reference.nodeId.value === identifiableNode(submodelId)));

  await run("DeleteSubmodelById", { submodelId });
  assert.equal(await opcua.exists(identifiableNode(submodelId)), false);
  await run("DeleteAssetAdministrationShellById", { aasId: shellId });
  assert.equal(await opcua.exists(identifiableNode(shellId)), false);
  assert.equal(await opcua.exists(identifiableNode(SHELL)), true);

  const cdId = "urn:twinport:test:cd:fresh";
  await run("PostConceptDescription", { body: JSON.stringify({ modelType: "ConceptDescription", id: cdId }) });
  assert.ok((await opcua.children("AASEnvironment/ConceptDescriptions")).has(cdId));
  await run("DeleteConceptDescriptionById", { cdId });
  assert.equal(await opcua.exists(identifiableNode(cdId)), false);
});

test("an event without payload is completed from the store", async () => {
  nextEvent = "strip-payload";
  await patchValue("TString", { TString: "fetched" });
  await eventually(
    async () => (await opcua.read(node("TString", "Value"))).value.value === "fetched",
    "the value read back from the store",
  );
});

test("a lost event is noticed at the next one and recovered by a resync that keeps monitored items", async () => {
  const monitor = await opcua.monitor(node("TInt", "Value"));
  await monitor.waitFor(() => true, 2000, "the initial value");
  nextEvent = "lose";
  await patchValue("TInt", { TInt: 111 });
  assert.equal((await opcua.read(node("TInt", "Value"))).value.value, 5000, "the lost change is not shown");
  // The next event arrives with a gap: after a short grace the gateway resyncs from the store.
  await patchValue("TDouble", { TDouble: 8.5 });
  await monitor.waitFor(valueIs(111), 3000, "the recovered value");
  assert.ok(
    system.log.some((line) => line.includes("resync (events missing after seq")),
    system.log.join("\n"),
  );
  // Same node, same monitored item: later changes keep arriving.
  await patchValue("TInt", { TInt: 222 });
  await monitor.waitFor(valueIs(222), 2000, "a value after the resync");
  await monitor.stop();
});

test("a heartbeat ahead of the last event seen makes the gateway resync", async () => {
  nextEvent = "lose";
  await patchValue("TShort", { TShort: 77 });
  const reply = await system.store.execute({ type: "GetSequence", params: {} });
  assert.ok(reply.ok);
  await system.bus.publishHeartbeat({ seq: reply.value.seq, time: new Date().toISOString() });
  await eventually(
    async () => (await opcua.read(node("TShort", "Value"))).value.value === 77,
    "the change recovered after the heartbeat",
  );
  assert.ok(system.log.some((line) => line.includes("resync (heartbeat at seq")));
});

test("NodeIds are the same on another gateway (or after a restart): derived from ids and paths", async () => {
  const second = await system.connect(await system.startGateway());
  const collect = async (client: OpcuaTestClient, local: string, into: string[]) => {
    for (const [, reference] of await client.children(local)) {
      into.push(`${reference.browseName.name} ${reference.nodeId.value}`);
      if (reference.nodeClass === 1) await collect(client, String(reference.nodeId.value), into);
    }
    return into;
  };
  const first = await collect(opcua, identifiableNode(VALUES_SUBMODEL), []);
  assert.ok(first.length > 100, `${first.length} nodes`);
  assert.deepEqual(await collect(second, identifiableNode(VALUES_SUBMODEL), []), first);
});
