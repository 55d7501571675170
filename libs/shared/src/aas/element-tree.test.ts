import assert from "node:assert/strict";
import { test } from "node:test";
import {
  childrenKey,
  deleteChild,
  type ElementJson,
  findByPath,
  getChildren,
  insertChild,
  isList,
  listIndexes,
  replaceChild,
} from "./element-tree.ts";
import { parseIdShortPath } from "./id-short-path.ts";
import { exampleEnvironment, richSubmodel } from "./test-support/fixtures.ts";

const find = (roots: ElementJson[], path: string) => findByPath(roots, parseIdShortPath(path));
const prop = (idShort: string | undefined, value: string): ElementJson => ({
  modelType: "Property",
  ...(idShort ? { idShort } : {}),
  valueType: "xs:string",
  value,
});

test("childrenKey and isList know every container kind", () => {
  assert.equal(childrenKey({ modelType: "SubmodelElementCollection" }), "value");
  assert.equal(childrenKey({ modelType: "SubmodelElementList" }), "value");
  assert.equal(childrenKey({ modelType: "Entity" }), "statements");
  assert.equal(childrenKey({ modelType: "AnnotatedRelationshipElement" }), "annotations");
  for (const leaf of [
    "Property",
    "MultiLanguageProperty",
    "Range",
    "File",
    "Blob",
    "ReferenceElement",
    "RelationshipElement",
    "BasicEventElement",
    "Operation",
    "Capability",
  ]) {
    assert.equal(childrenKey({ modelType: leaf }), undefined, leaf);
    assert.deepEqual(getChildren({ modelType: leaf, value: [prop("x", "y")] }), [], leaf);
  }
  assert.ok(isList({ modelType: "SubmodelElementList" }));
  assert.ok(!isList({ modelType: "SubmodelElementCollection" }));
});

test("findByPath follows idShorts and list indexes", () => {
  const roots = exampleEnvironment().submodels[1].submodelElements as ElementJson[];
  assert.equal(find(roots, "Dimensions.Nested.Depth")?.value, "0.3");
  assert.equal(find(roots, "Tags[1]")?.value, "test");
  assert.equal(find(roots, "Links.AnnotatedLink.Note")?.value, "annotation value");
  assert.equal(find(roots, "Motor.Power")?.value, "1.5");
  assert.equal(find(roots, "Dimensions")?.modelType, "SubmodelElementCollection");
  const rich = richSubmodel().submodelElements as ElementJson[];
  assert.equal(find(rich, "Matrix[1][0]")?.value, "3");
  assert.equal(find(rich, "Records[1].A")?.value, "a1");
  for (const missing of [
    "Nope",
    "Tags[2]",
    "Tags.Tag",
    "Dimensions[0]",
    "MaxRotationSpeed.x",
    "Dimensions.Nested.Nope",
    "Matrix[0][5]",
  ]) {
    assert.equal(find(missing.startsWith("Matrix") ? rich : roots, missing), undefined, missing);
  }
  assert.equal(findByPath(roots, [{ index: 0 }]), undefined);
});

test("insertChild appends (a list item's position is its index), creating the children key", () => {
  const list: ElementJson = { modelType: "SubmodelElementList", idShort: "L", typeValueListElement: "Property" };
  assert.equal(insertChild(list, prop(undefined, "a")), 0);
  assert.equal(insertChild(list, prop(undefined, "b")), 1);
  assert.deepEqual(listIndexes(list), [0, 1]);
  const entity: ElementJson = { modelType: "Entity", idShort: "E", entityType: "CoManagedEntity" };
  insertChild(entity, prop("s", "1"));
  assert.deepEqual(entity.statements, [prop("s", "1")]);
  const submodel: ElementJson = { modelType: "Submodel", id: "urn:sm" };
  insertChild(submodel, prop("top", "1"));
  assert.deepEqual(getChildren(submodel), [prop("top", "1")]);
  assert.throws(() => insertChild(prop("p", "1"), prop("x", "1")), TypeError);
});

test("replaceChild and deleteChild address children by idShort or index", () => {
  const collection: ElementJson = {
    modelType: "SubmodelElementCollection",
    idShort: "C",
    value: [prop("a", "1"), prop("b", "2")],
  };
  replaceChild(collection, { idShort: "b" }, prop("b", "3"));
  assert.deepEqual(collection.value, [prop("a", "1"), prop("b", "3")]);
  assert.throws(() => replaceChild(collection, { idShort: "z" }, prop("z", "1")), RangeError);
  assert.throws(() => replaceChild(collection, { index: 0 }, prop("a", "1")), RangeError);

  const list: ElementJson = {
    modelType: "SubmodelElementList",
    idShort: "L",
    value: [prop(undefined, "x"), prop(undefined, "y"), prop(undefined, "z")],
  };
  replaceChild(list, { index: 2 }, prop(undefined, "Z"));
  deleteChild(list, { index: 0 });
  assert.deepEqual(list.value, [prop(undefined, "y"), prop(undefined, "Z")], "later items move up");
  assert.throws(() => deleteChild(list, { index: 2 }), RangeError);
  assert.throws(() => deleteChild(list, { idShort: "y" }), RangeError);

  deleteChild(collection, { idShort: "a" });
  deleteChild(collection, { idShort: "b" });
  assert.equal("value" in collection, false, "no empty children list is left behind");
  assert.deepEqual(getChildren(collection), []);
});
