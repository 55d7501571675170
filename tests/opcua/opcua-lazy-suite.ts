/**
 * Lazy OPC UA nodes (ADR 0036), against embedded and distributed mode with a real OPC UA client:
 * an identifiable's nodes are made on the first request that names one of them (read, browse,
 * write, subscribe, call, translate) and released after `releaseUnusedNodesAfterMs` without use,
 * unless a monitored item watches one; NodeIds stay the same throughout. How many identifiables
 * have their nodes made is read from /metrics (twinport_opcua_materialized_identifiables).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { AttributeIds, DataType, makeBrowsePath, NodeClass } from "node-opcua";
import { generatedSubmodel } from "../../bench/test-support/generated-model.ts";
import { b64 } from "../test-support/http-client.ts";
import { metricSample } from "../test-support/many-shells-model.ts";
import type { OpcuaTestClient } from "../test-support/opcua-client.ts";
import { elementNode, identifiableNode } from "../test-support/opcua-model.ts";
import type { Mode } from "../test-support/system.ts";
import { type OpcuaSystem, startOpcuaSystem } from "./opcua-system.ts";

const SUBMODELS = 12;
const PROPERTIES = 5;
const RELEASE_AFTER_MS = 300;
const submodelId = (i: number) => `urn:twinport:test:lazy:Sub${i}`;
const SHELL = "urn:twinport:test:lazy:shell";

function lazyModel() {
  return {
    assetAdministrationShells: [
      {
        modelType: "AssetAdministrationShell",
        id: SHELL,
        idShort: "LazyShell",
        assetInformation: { assetKind: "Instance", globalAssetId: "urn:twinport:test:lazy:asset" },
        submodels: [{ type: "ModelReference", keys: [{ type: "Submodel", value: submodelId(0) }] }],
      },
    ],
    submodels: Array.from({ length: SUBMODELS }, (_, i) => generatedSubmodel(submodelId(i), PROPERTIES)),
  };
}

const valueNode = (i: number, property: number) => elementNode(submodelId(i), `P${property}`, "Value");
const valueUrl = (i: number, property: number) =>
  `/submodels/${b64(submodelId(i))}/submodel-elements/P${property}/$value`;

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) assert.fail(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function opcuaLazySuite(mode: Mode): void {
  let system: OpcuaSystem;
  let opcua: OpcuaTestClient;

  const materialized = async (): Promise<number> => {
    const text = await (await fetch(`${system.management[0]}/metrics`)).text();
    const value = metricSample(text, "twinport_opcua_materialized_identifiables");
    assert.ok(value !== undefined, `no twinport_opcua_materialized_identifiables in /metrics:\n${text}`);
    return value;
  };
  const patch = async (i: number, property: number, value: number) => {
    const response = await system.http.request("PATCH", valueUrl(i, property), { body: String(value) });
    assert.equal(response.status, 204, response.text);
  };

  before(async () => {
    system = await startOpcuaSystem(mode, {
      model: lazyModel(),
      opcuaEndpoint: { releaseUnusedNodesAfterMs: RELEASE_AFTER_MS },
      // A free management port for /metrics, named in the ready line.
      config: { core: { managementPort: 0 } },
    });
    opcua = system.opcua[0];
  });

  after(async () => {
    await system?.stop();
  });

  test(`${mode}: at start every identifiable has its own node and none has the nodes below it`, async () => {
    assert.equal(await materialized(), 0);
    const environment = await opcua.children("AASEnvironment");
    for (let i = 0; i < SUBMODELS; i++) assert.ok(environment.has(`Sub${i}`), `Sub${i} under AASEnvironment`);
    assert.ok(environment.has("LazyShell"));
    // Browsing the environment lists the identifiables without making their nodes.
    assert.equal(await materialized(), 0);
  });

  test(`${mode}: a submodel never touched before reads by NodeId without browsing first`, async () => {
    const started = performance.now();
    const value = await opcua.read(valueNode(1, 3));
    const ms = performance.now() - started;
    assert.ok(value.statusCode.isGood(), value.statusCode.toString());
    assert.equal(value.value.dataType, DataType.Int32);
    assert.equal(value.value.value, 3);
    assert.ok(ms < 1000, `first read took ${Math.round(ms)} ms`);
    assert.ok((await materialized()) >= 1);
    // An element that does not exist in a known submodel stays unknown.
    assert.equal(await opcua.exists(elementNode(submodelId(1), "NoSuch")), false);
  });

  test(`${mode}: browse, write and translate a browse path on submodels never touched before`, async () => {
    const children = await opcua.children(identifiableNode(submodelId(2)));
    for (let p = 0; p < PROPERTIES; p++) assert.ok(children.has(`P${p}`), `P${p} below Sub2`);
    assert.equal(children.get("P4")?.nodeId.value, elementNode(submodelId(2), "P4"));

    const status = await opcua.write(valueNode(3, 1), { dataType: DataType.Int32, value: 4711 });
    assert.ok(status.isGood(), status.toString());
    const response = await system.http.get(valueUrl(3, 1));
    assert.deepEqual(response.json(), { P1: 4711 });

    const namespaces = (await opcua.session.readNamespaceArray()) as string[];
    const i4aas = namespaces.indexOf("http://opcfoundation.org/UA/I4AAS/");
    const path = makeBrowsePath(
      "RootFolder",
      `/Objects/${opcua.ns}:AASEnvironment/${opcua.ns}:Sub4/${opcua.ns}:P2.${i4aas}:Value`,
    );
    const result = await opcua.session.translateBrowsePath(path);
    assert.ok(result.statusCode.isGood(), result.statusCode.toString());
    assert.equal(result.targets?.[0]?.targetId.toString(), opcua.nodeId(valueNode(4, 2)));

    // A shell's nodes too: its submodel reference still points at the submodel's node.
    const shell = await opcua.children(identifiableNode(SHELL));
    assert.ok(shell.has("AssetInformation") && shell.has("Submodels"), [...shell.keys()].join(", "));
  });

  test(`${mode}: idle nodes are released and made again with the same NodeIds; a monitored item keeps them and keeps notifying`, async () => {
    // Subscribed on a submodel never touched before: the item's node is made by CreateMonitoredItems.
    const monitor = await opcua.monitor(valueNode(5, 0));
    await monitor.waitFor((value) => value.value.value === 0, 5000, "the initial value 0");
    await opcua.read(valueNode(6, 1));
    assert.ok((await materialized()) >= 2);
    // Everything idle is released; the monitored submodel stays.
    await eventually(async () => (await materialized()) === 1, "only the monitored submodel keeps its nodes");
    // Released nodes come back with the same NodeIds and the store's current values.
    await patch(6, 1, 61);
    const again = await opcua.read(valueNode(6, 1));
    assert.ok(again.statusCode.isGood(), again.statusCode.toString());
    assert.equal(again.value.value, 61);
    const element = await opcua.read(elementNode(submodelId(6), "P1"), AttributeIds.NodeClass);
    assert.equal(element.value.value, NodeClass.Object);
    // Well past several release periods, the monitored item still reports commits.
    await new Promise((resolve) => setTimeout(resolve, RELEASE_AFTER_MS * 3));
    await patch(5, 0, 50);
    await monitor.waitFor((value) => value.value.value === 50, 5000, "50 after the release periods");
    await monitor.stop();
    // Without the monitored item its submodel is released too.
    await eventually(async () => (await materialized()) === 0, "every submodel released once nothing watches it");
    await patch(5, 0, 51);
    assert.equal((await opcua.read(valueNode(5, 0))).value.value, 51);
    // The shell was released too; made again, its submodel reference links to the submodel's node again.
    const link = await opcua.session.browse({
      nodeId: opcua.nodeId(identifiableNode(SHELL, "Submodels/0")),
      referenceTypeId: "NonHierarchicalReferences",
      includeSubtypes: true,
      resultMask: 63,
    });
    assert.ok(
      link.references?.some((reference) => reference.nodeId.value === identifiableNode(submodelId(0))),
      "AASReference to the submodel node",
    );
  });

  test(`${mode}: a value read again after its nodes were released and made again keeps its SourceTimestamp; a change moves it`, async () => {
    const first = await opcua.read(valueNode(8, 3));
    assert.ok(first.sourceTimestamp, "a SourceTimestamp");
    await eventually(async () => (await materialized()) === 0, "Sub8 released");
    const again = await opcua.read(valueNode(8, 3));
    assert.equal(again.value.value, first.value.value);
    assert.equal(again.sourceTimestamp?.getTime(), first.sourceTimestamp.getTime(), "an unchanged value stamped anew");
    await patch(8, 3, 83);
    const changed = await opcua.read(valueNode(8, 3));
    assert.equal(changed.value.value, 83);
    assert.ok(changed.sourceTimestamp!.getTime() > first.sourceTimestamp.getTime(), "a change keeps the old stamp");
  });

  test(`${mode}: a value changed while a submodel's nodes are released is read when they are made again`, async () => {
    await opcua.read(valueNode(7, 2));
    await eventually(async () => (await materialized()) === 0, "Sub7 released");
    await patch(7, 2, 72);
    // The change event found no nodes to change; the store's state is what the new nodes show.
    const value = await opcua.read(valueNode(7, 2));
    assert.equal(value.value.value, 72);
    const monitor = await opcua.monitor(valueNode(7, 2));
    await monitor.waitFor((dataValue) => dataValue.value.value === 72, 5000, "72 at subscribe");
    await patch(7, 2, 73);
    await monitor.waitFor((dataValue) => dataValue.value.value === 73, 5000, "73 pushed");
    await monitor.stop();
  });
}
