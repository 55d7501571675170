import assert from "node:assert/strict";
import { test } from "node:test";
import { assembleElement, assembleElements, flattenElements, shallowOf } from "./element-records.ts";
import type { ElementJson } from "./element-tree.ts";
import { readAas } from "./model-io.ts";
import { exampleEnvironment, type Json, richSubmodel } from "./test-support/fixtures.ts";

function canonicalSubmodels(): Json[] {
  return [...exampleEnvironment().submodels, richSubmodel()].map(
    (submodel) => readAas(submodel, "Submodel", { validate: true }).jsonable,
  );
}

test("flatten → assemble gives back every submodel's elements exactly", () => {
  for (const submodel of canonicalSubmodels()) {
    const elements = submodel.submodelElements as ElementJson[];
    const records = flattenElements(elements, "");
    // Stored records are JSON text: make sure nothing depends on shared objects.
    const stored = records.map((record) => ({
      path: record.path,
      shallow: JSON.parse(JSON.stringify(record.shallow)),
    }));
    assert.deepEqual(assembleElements(stored, ""), elements, String(submodel.id));
  }
});

test("records are pre-order, list items get [i] segments, containers keep an empty children key", () => {
  const rich = canonicalSubmodels().at(-1)!;
  const records = flattenElements(rich.submodelElements, "");
  const paths = records.map((record) => record.path);
  const at = (path: string) => records.find((record) => record.path === path)!;
  assert.deepEqual(
    paths.filter((path) => path.startsWith("Matrix")),
    ["Matrix", "Matrix[0]", "Matrix[0][0]", "Matrix[0][1]", "Matrix[1]", "Matrix[1][0]", "Matrix[1][1]"],
  );
  assert.deepEqual(
    paths.filter((path) => path.startsWith("Part")),
    ["Part", "Part.Link", "Part.Link.Weight", "Part.Link.Doc"],
  );
  assert.deepEqual(
    { ...at("Matrix[1][0]"), shallow: undefined },
    { path: "Matrix[1][0]", parentPath: "Matrix[1]", segment: "[0]", index: 0, shallow: undefined },
  );
  assert.deepEqual(
    { ...at("Records[0].A"), shallow: undefined },
    { path: "Records[0].A", parentPath: "Records[0]", segment: "A", shallow: undefined },
  );
  assert.deepEqual(at("Matrix[1]").shallow.value, []);
  assert.deepEqual(at("Part").shallow.statements, []);
  assert.deepEqual(at("Part.Link").shallow.annotations, []);
  assert.equal(at("Decimal").shallow.value, "12345678901234567890.123456789");
  // Operation variables are part of the Operation, not records of their own.
  assert.equal((at("Run").shallow.inputVariables as Json[]).length, 1);
  assert.ok(!paths.some((path) => path.startsWith("Run.")));

  const nested = flattenElements(rich.submodelElements.find((e: Json) => e.idShort === "Matrix").value, "Matrix", true);
  assert.deepEqual(
    nested.map((record) => record.path),
    ["Matrix[0]", "Matrix[0][0]", "Matrix[0][1]", "Matrix[1]", "Matrix[1][0]", "Matrix[1][1]"],
  );
});

test("shallowOf copies without children and leaves the element alone", () => {
  const element = exampleEnvironment().submodels[0].submodelElements[0];
  const before = structuredClone(element);
  const shallow = shallowOf(element);
  assert.deepEqual(shallow, { ...before, value: [] });
  assert.deepEqual(element, before);
  assert.deepEqual(shallowOf({ modelType: "Property", idShort: "p", valueType: "xs:int", value: "1" }), {
    modelType: "Property",
    idShort: "p",
    valueType: "xs:int",
    value: "1",
  });
});

test("assembles one element, or the children below a path, from a subtree's records", () => {
  const submodel = canonicalSubmodels().at(-1)!;
  const elements = submodel.submodelElements as Json[];
  const records = flattenElements(elements, "");
  const subtree = (path: string) =>
    records.filter(
      (record) => record.path === path || record.path.startsWith(`${path}.`) || record.path.startsWith(`${path}[`),
    );
  for (const element of elements) {
    assert.deepEqual(assembleElement(subtree(element.idShort), element.idShort), element, element.idShort);
  }
  const matrix = elements.find((e) => e.idShort === "Matrix")!;
  assert.deepEqual(assembleElement(subtree("Matrix[1]"), "Matrix[1]"), matrix.value[1]);
  assert.deepEqual(assembleElements(subtree("Matrix"), "Matrix"), matrix.value, "the record AT rootPath is ignored");
  assert.deepEqual(
    assembleElements(records, "Part.Link"),
    elements.find((e) => e.idShort === "Part")!.statements[0].annotations,
  );
  assert.equal(assembleElement(records, "Nope"), undefined);
  // Records cut at a depth (level=core): containers at the edge come back without children.
  const shallowRecords = records.filter((record) => record.parentPath === "" || record.parentPath === "Matrix");
  const assembled = assembleElements(shallowRecords, "");
  const assembledMatrix = assembled.find((e) => e.idShort === "Matrix")!;
  assert.deepEqual(
    (assembledMatrix.value as Json[]).map((row) => "value" in row),
    [false, false],
  );
  assert.equal("value" in assembled.find((e) => e.idShort === "Records")!, false);
  assert.equal("value" in assembled.find((e) => e.idShort === "EmptyCollection")!, false);
});

test("a record whose parent is missing is an error, not silently dropped", () => {
  const records = flattenElements(exampleEnvironment().submodels[0].submodelElements, "").filter(
    (record) => record.path !== "Dimensions.Nested",
  );
  assert.throws(() => assembleElements(records, ""), /no parent record "Dimensions.Nested"/);
});

test("assembles 100,000 records fast", (t) => {
  const collections: ElementJson[] = [];
  for (let c = 0; c < 1000; c++) {
    const value: ElementJson[] = [];
    for (let p = 0; p < 99; p++)
      value.push({ modelType: "Property", idShort: `P${p}`, valueType: "xs:int", value: String(p) });
    collections.push({ modelType: "SubmodelElementCollection", idShort: `C${c}`, value });
  }
  const records = flattenElements(collections, "");
  assert.equal(records.length, 100_000);
  const started = performance.now();
  const assembled = assembleElements(records, "");
  const elapsed = performance.now() - started;
  assert.equal(assembled.length, 1000);
  assert.equal((assembled[999].value as ElementJson[])[98].value, "98");
  assert.ok(elapsed < 2000, `assembling took ${elapsed.toFixed(0)} ms`);
  t.diagnostic(`assembled 100,000 records in ${elapsed.toFixed(0)} ms`);
});
