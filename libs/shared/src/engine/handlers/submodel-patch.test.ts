import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";
import type { RawJson } from "../../contracts/index.ts";
import { type TestEngine, testEngine } from "./test-support/handlers.ts";

const SM = "https://example.org/submodels/technical-data-1";
const json = (value: unknown) => JSON.stringify(value);
const raw = (value: unknown) => (value as RawJson).rawJson;

describe("PATCH of submodels and elements (merge patch, $metadata, $value)", () => {
  let t: TestEngine;
  const element = async (idShortPath: string) =>
    (await t.ok("GetSubmodelElementByPath", { submodelId: SM, idShortPath })).value as any;
  const submodel = async () => (await t.ok("GetSubmodelById", { submodelId: SM })).value as any;
  beforeEach(async () => {
    t = await testEngine();
  });

  test("element: merge patch changes the named attributes, null removes one, the rest stays", async () => {
    await t.ok("PatchSubmodelElementByPath", {
      submodelId: SM,
      idShortPath: "MaxRotationSpeed",
      body: json({ value: "6000", category: "PARAMETER", semanticId: null }),
    });
    const patched = await element("MaxRotationSpeed");
    assert.deepEqual(patched, {
      modelType: "Property",
      idShort: "MaxRotationSpeed",
      category: "PARAMETER",
      valueType: "xs:int",
      value: "6000",
    });
    assert.equal(t.events.at(-1)!.kind, "element.updated");
    assert.deepEqual(t.events.at(-1)!.payload, patched);
  });

  test("element: arrays are replaced whole; a children list must keep the same elements", async () => {
    const dimensions = await element("Dimensions");
    const value = dimensions.value.map((child: any) =>
      child.idShort === "Width" ? { ...child, value: "0.5" } : child,
    );
    await t.ok("PatchSubmodelElementByPath", { submodelId: SM, idShortPath: "Dimensions", body: json({ value }) });
    assert.equal((await element("Dimensions.Width")).value, "0.5");
    await t.fails(
      "PatchSubmodelElementByPath",
      { submodelId: SM, idShortPath: "Dimensions", body: json({ value: value.slice(1) }) },
      "bad-request",
      /add or remove/,
    );
    await t.fails(
      "PatchSubmodelElementByPath",
      { submodelId: SM, idShortPath: "Dimensions", body: json({ value: null }) },
      "bad-request",
      /add or remove/,
    );
    assert.equal((await element("Dimensions")).value.length, 3, "nothing changed");
  });

  test("element: no change of kind or idShort, invalid results and unknown keys are 400, missing is 404", async () => {
    await t.fails(
      "PatchSubmodelElementByPath",
      { submodelId: SM, idShortPath: "MaxRotationSpeed", body: json({ idShort: "Other" }) },
      "bad-request",
      /idShort/,
    );
    await t.fails(
      "PatchSubmodelElementByPath",
      { submodelId: SM, idShortPath: "MaxRotationSpeed", body: json({ modelType: "Range" }) },
      "bad-request",
      /modelType/,
    );
    await t.fails(
      "PatchSubmodelElementByPath",
      { submodelId: SM, idShortPath: "MaxRotationSpeed", body: json({ value: "fast" }) },
      "validation",
    );
    await t.fails(
      "PatchSubmodelElementByPath",
      { submodelId: SM, idShortPath: "MaxRotationSpeed", body: json({ valueType: null }) },
      "bad-request",
    );
    await t.fails(
      "PatchSubmodelElementByPath",
      { submodelId: SM, idShortPath: "MaxRotationSpeed", body: json({ colour: "red" }) },
      "bad-request",
      /colour/,
    );
    await t.fails(
      "PatchSubmodelElementByPath",
      { submodelId: SM, idShortPath: "MaxRotationSpeed", body: "[1]" },
      "bad-request",
      /object/,
    );
    await t.fails(
      "PatchSubmodelElementByPath",
      { submodelId: SM, idShortPath: "Tags[0]", body: json({ idShort: "Named" }) },
      "bad-request",
    );
    await t.fails("PatchSubmodelElementByPath", { submodelId: SM, idShortPath: "Nope", body: "{}" }, "not-found");
    assert.equal((await element("MaxRotationSpeed")).value, "5000");
  });

  test("element $metadata: changes metadata only; naming a value attribute is a 400", async () => {
    await t.ok("PatchSubmodelElementByPath", {
      submodelId: SM,
      idShortPath: "Dimensions",
      content: "metadata",
      body: json({ description: [{ language: "en", text: "size" }] }),
    });
    const dimensions = await element("Dimensions");
    assert.deepEqual(dimensions.description, [{ language: "en", text: "size" }]);
    assert.equal(dimensions.value.length, 3, "the children stay");
    await t.fails(
      "PatchSubmodelElementByPath",
      { submodelId: SM, idShortPath: "MaxRotationSpeed", content: "metadata", body: json({ value: "1" }) },
      "bad-request",
      /"value"/,
    );
    await t.fails(
      "PatchSubmodelElementByPath",
      { submodelId: SM, idShortPath: "Functions.Reset", content: "metadata", body: "{}" },
      "bad-request",
      /Operation/,
    );
    // A co-managed entity may not have a globalAssetId (AASd-014), which $metadata cannot remove.
    await t.fails(
      "PatchSubmodelElementByPath",
      { submodelId: SM, idShortPath: "Motor", content: "metadata", body: json({ entityType: "CoManagedEntity" }) },
      "validation",
      /AASd-014/,
    );
    await t.fails(
      "PatchSubmodelElementByPath",
      { submodelId: SM, idShortPath: "Motor", content: "metadata", body: json({ globalAssetId: null }) },
      "bad-request",
      /globalAssetId/,
    );
  });

  test("a patch below a container bumps the revision of every container above it", async () => {
    const before = await t.ok("GetSubmodelElementByPath", { submodelId: SM, idShortPath: "Dimensions.Nested" });
    await t.ok("PatchSubmodelElementValueByPath", {
      submodelId: SM,
      idShortPath: "Dimensions",
      body: json({ Nested: { Depth: 1.25 } }),
    });
    const after = await t.ok("GetSubmodelElementByPath", { submodelId: SM, idShortPath: "Dimensions.Nested" });
    assert.ok(after.revision! > before.revision!, "Nested's ETag covers Depth");
    assert.equal((after.value as any).value[0].value, "1.25");
  });

  test("submodel: merge patch of the submodel's own attributes; id is fixed; payload left out", async () => {
    await t.ok("PatchSubmodelById", { submodelId: SM, body: json({ idShort: "Renamed", category: "CONSTANT" }) });
    const sm = await submodel();
    assert.equal(sm.idShort, "Renamed");
    assert.equal(sm.category, "CONSTANT");
    assert.equal(sm.submodelElements.length, 10, "elements untouched");
    assert.equal(t.events.at(-1)!.kind, "submodel.updated");
    assert.equal(t.events.at(-1)!.payloadOmitted, true);
    await t.fails("PatchSubmodelById", { submodelId: SM, body: json({ id: "urn:other" }) }, "bad-request", /"id"/);
    await t.fails("PatchSubmodelById", { submodelId: SM, body: json({ kind: "Sometimes" }) }, "bad-request");
  });

  test("submodel with submodelElements: replaced whole, same elements required; $metadata excludes them", async () => {
    const sm = await submodel();
    const elements = sm.submodelElements.map((e: any) =>
      e.idShort === "MaxRotationSpeed" ? { ...e, value: "42" } : e,
    );
    await t.ok("PatchSubmodelById", { submodelId: SM, body: json({ submodelElements: elements }) });
    assert.equal((await element("MaxRotationSpeed")).value, "42");
    assert.deepEqual(t.events.at(-1)!.payload, { ...sm, submodelElements: elements });
    await t.fails(
      "PatchSubmodelById",
      { submodelId: SM, body: json({ submodelElements: elements.slice(1) }) },
      "bad-request",
      /add or remove/,
    );
    await t.fails(
      "PatchSubmodelById",
      { submodelId: SM, content: "metadata", body: json({ submodelElements: null }) },
      "bad-request",
      /submodelElements/,
    );
    await t.ok("PatchSubmodelById", {
      submodelId: SM,
      content: "metadata",
      body: json({ administration: { version: "2" } }),
    });
    assert.deepEqual((await submodel()).administration, { version: "2" });
  });

  test("submodel $value: only named top-level elements change, all or nothing, unknown names are 400", async () => {
    await t.ok("PatchSubmodelById", {
      submodelId: SM,
      content: "value",
      body: '{"MaxRotationSpeed": 7000, "Dimensions": {"Width": 12345678901234567890.5}}',
    });
    assert.equal((await element("MaxRotationSpeed")).value, "7000");
    assert.equal((await element("Dimensions.Width")).value, "12345678901234567890.5");
    assert.equal((await element("Dimensions.Height")).value, "0.40");
    await t.fails(
      "PatchSubmodelById",
      { submodelId: SM, content: "value", body: '{"MaxRotationSpeed": 1, "Nope": 2}' },
      "bad-request",
      /Nope/,
    );
    await t.fails(
      "PatchSubmodelById",
      { submodelId: SM, content: "value", body: '{"MaxRotationSpeed": 1, "Tags": ["a", "b", "c"]}' },
      "validation",
      /cannot add/,
    );
    await t.fails(
      "PatchSubmodelById",
      { submodelId: SM, content: "value", body: '{"Dimensions.Width": 1}' },
      "bad-request",
    );
    await t.fails("PatchSubmodelById", { submodelId: SM, content: "value", body: "[]" }, "bad-request");
    assert.equal((await element("MaxRotationSpeed")).value, "7000", "a failed patch changed nothing");
    const value = await t.ok("GetSubmodelById", { submodelId: SM, modifiers: { content: "value" } });
    assert.match(raw(value.value), /"Width":12345678901234567890.5/);
  });

  test("If-Match against the submodel's revision on every PATCH form", async () => {
    const { revision } = await t.ok("GetSubmodelById", { submodelId: SM });
    await t.ok("PatchSubmodelById", {
      submodelId: SM,
      content: "value",
      body: '{"MaxRotationSpeed": 1}',
      preconditions: { ifMatch: [String(revision)] },
    });
    await t.fails(
      "PatchSubmodelById",
      {
        submodelId: SM,
        content: "value",
        body: '{"MaxRotationSpeed": 2}',
        preconditions: { ifMatch: [String(revision)] },
      },
      "precondition-failed",
    );
    await t.fails(
      "PatchSubmodelById",
      { submodelId: SM, body: "{}", preconditions: { ifMatch: [String(revision)] } },
      "precondition-failed",
    );
    const current = (await t.ok("GetSubmodelById", { submodelId: SM })).revision!;
    await t.fails(
      "PatchSubmodelById",
      { submodelId: SM, content: "metadata", body: "{}", preconditions: { ifNoneMatch: [String(current)] } },
      "precondition-failed",
    );
    const etag = (await t.ok("GetSubmodelElementByPath", { submodelId: SM, idShortPath: "Motor" })).revision!;
    await t.ok("PatchSubmodelElementByPath", {
      submodelId: SM,
      idShortPath: "Motor",
      body: "{}",
      preconditions: { ifMatch: [String(etag)] },
    });
    await t.fails(
      "PatchSubmodelElementByPath",
      { submodelId: SM, idShortPath: "Motor", body: "{}", preconditions: { ifMatch: [String(etag)] } },
      "precondition-failed",
    );
  });

  test("DELETE below a shell removes the submodel and the shell's reference", async () => {
    const aasId = "https://example.org/aas/test-1";
    await t.ok("DeleteSubmodelById", { submodelId: SM, aasId });
    await t.fails("GetSubmodelById", { submodelId: SM }, "not-found");
    const shell = (await t.ok("GetAssetAdministrationShellById", { aasId })).value as any;
    assert.ok(!JSON.stringify(shell.submodels ?? []).includes(SM));
    assert.deepEqual(
      t.events.slice(-2).map((e) => e.kind),
      ["submodel.deleted", "shell.updated"],
    );
  });
});

describe("PATCH …/$value of a collection holding a child named like itself", () => {
  test("both the wrapped and the bare form apply; a body that fits neither is the wrapped reading's 400", async () => {
    // W holds W holds the Property W: {"W":{"W":7}} reads at its first level as both forms. It was
    // taken as wrapped only, failed deeper, and the bare form it is was refused (a black-box finding).
    const t = await testEngine();
    const nested = {
      modelType: "SubmodelElementCollection",
      idShort: "W",
      value: [
        {
          modelType: "SubmodelElementCollection",
          idShort: "W",
          value: [{ modelType: "Property", idShort: "W", valueType: "xs:int", value: "1" }],
        },
      ],
    };
    await t.ok("PostSubmodelElement", { submodelId: SM, body: json(nested) });
    const valueOf = async () =>
      (await t.ok("GetSubmodelElementByPath", { submodelId: SM, idShortPath: "W.W.W" })).value as { value: string };
    await t.ok("PatchSubmodelElementValueByPath", { submodelId: SM, idShortPath: "W", body: json({ W: { W: 7 } }) });
    assert.equal((await valueOf()).value, "7");
    await t.ok("PatchSubmodelElementValueByPath", {
      submodelId: SM,
      idShortPath: "W",
      body: json({ W: { W: { W: 8 } } }),
    });
    assert.equal((await valueOf()).value, "8");
    await t.fails(
      "PatchSubmodelElementValueByPath",
      { submodelId: SM, idShortPath: "W", body: json({ W: { W: "not a number" } }) },
      "validation",
    );
    assert.equal((await valueOf()).value, "8", "nothing changed");
  });
});
