import assert from "node:assert/strict";
import { test } from "node:test";
import { withoutBlobValues } from "./blob-extent.ts";
import { hasMetadata, metadataOmits, toMetadata } from "./metadata.ts";
import { elementReference, submodelReference } from "./model-reference.ts";
import { hasPathItems, rootIdShortOf } from "./path-items.ts";
import { exampleEnvironment, type Json } from "./test-support/fixtures.ts";

const submodel = (): Json => exampleEnvironment().submodels[0];
const element = (idShort: string): Json => submodel().submodelElements.find((e: Json) => e.idShort === idShort);

test("$metadata drops values and children per the v3.0.1 table and keeps the rest", () => {
  const sm = submodel();
  const meta = toMetadata(sm);
  assert.equal(meta.submodelElements, undefined);
  assert.equal(meta.id, sm.id);
  assert.deepEqual(meta.semanticId, sm.semanticId);
  const property = toMetadata(element("MaxRotationSpeed"));
  assert.deepEqual(Object.keys(property).sort(), ["idShort", "modelType", "semanticId", "valueType"]);
  const list = toMetadata(element("Tags"));
  assert.equal(list.value, undefined);
  assert.equal(list.typeValueListElement, "Property");
  const entity = toMetadata(element("Motor"));
  assert.deepEqual(Object.keys(entity).sort(), ["entityType", "idShort", "modelType"]);
  const blob = toMetadata(element("Firmware"));
  assert.equal(blob.contentType, "application/octet-stream");
  assert.equal(blob.value, undefined);
  assert.deepEqual(toMetadata(element("TemperatureRange")).min, undefined);
});

test("Operation and Capability have no $metadata form; the input is not modified", () => {
  const functions = element("Functions");
  for (const child of functions.value) assert.equal(hasMetadata(child), false, child.modelType);
  assert.deepEqual(metadataOmits("Operation"), []);
  assert.equal(hasMetadata({ modelType: "Submodel" }), true);
  const property = element("MaxRotationSpeed");
  toMetadata(property);
  assert.equal(property.value, "5000");
});

test("$path is defined on collections, lists and entities only", () => {
  const kinds = submodel().submodelElements.map((e: Json) => [e.modelType, hasPathItems(e)]);
  assert.deepEqual(
    kinds.filter(([, has]: [string, boolean]) => has).map(([kind]: [string]) => kind),
    [
      "SubmodelElementCollection",
      "SubmodelElementList",
      "SubmodelElementCollection",
      "SubmodelElementCollection",
      "Entity",
    ],
  );
  assert.equal(hasPathItems({ modelType: "AnnotatedRelationshipElement" }), false);
  assert.equal(rootIdShortOf("a.b[2].c"), "a");
  assert.equal(rootIdShortOf("L[0][1]"), "L");
  assert.equal(rootIdShortOf("x"), "x");
});

test("$reference: Submodel key, then one key per step typed by its kind; list items by index", () => {
  assert.deepEqual(submodelReference("urn:sm"), {
    type: "ModelReference",
    keys: [{ type: "Submodel", value: "urn:sm" }],
  });
  const reference = elementReference("urn:sm", [
    { segment: { idShort: "Tags" }, modelType: "SubmodelElementList" },
    { segment: { index: 1 }, modelType: "Property" },
  ]);
  assert.deepEqual(reference.keys, [
    { type: "Submodel", value: "urn:sm" },
    { type: "SubmodelElementList", value: "Tags" },
    { type: "Property", value: "1" },
  ]);
});

test("withoutBlobValues removes Blob bytes at any depth, keeps contentType, copies only what changes", () => {
  const sm = submodel();
  sm.submodelElements[0].value.push({ modelType: "Blob", idShort: "Inner", contentType: "image/png", value: "AAEC" });
  const stripped = withoutBlobValues(sm);
  const firmware = stripped.submodelElements.find((e: Json) => e.idShort === "Firmware");
  assert.deepEqual(firmware, { modelType: "Blob", idShort: "Firmware", contentType: "application/octet-stream" });
  assert.deepEqual(stripped.submodelElements[0].value.at(-1), {
    modelType: "Blob",
    idShort: "Inner",
    contentType: "image/png",
  });
  assert.equal(sm.submodelElements[0].value.at(-1).value, "AAEC", "the input keeps its bytes");
  assert.equal(stripped.submodelElements[1], sm.submodelElements[1], "a subtree without Blobs is shared");
  const noBlob = element("Tags");
  assert.equal(withoutBlobValues(noBlob), noBlob);
});
