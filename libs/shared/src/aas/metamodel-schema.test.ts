import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { ABSTRACT_CLASSES, CLASSES, type ClassRef, type PropertyShape } from "./metamodel-schema.ts";
import { exampleEnvironment, richShell, richSubmodel } from "./test-support/fixtures.ts";

// aas-core does not export its property tables; its jsonization source spells them out as
// `SETTER_MAP_FOR_<CLASS> = new Map([["name", …], …])` and `<CLASS>_FROM_JSONABLE_DISPATCH`.
function aasCoreJsonizationSource(): string {
  const require = createRequire(import.meta.url);
  const main = require.resolve("@aas-core-works/aas-core3.0-typescript");
  const packageRoot = main.slice(0, main.lastIndexOf("/dist/"));
  return readFileSync(join(packageRoot, "dist/lib/esm/jsonization.js"), "utf8");
}

const pascal = (screaming: string) =>
  screaming
    .split("_")
    .map((word) => word[0] + word.slice(1).toLowerCase())
    .join("");

function mapsOf(source: string, pattern: RegExp): Map<string, string[]> {
  const maps = new Map<string, string[]>();
  for (const match of source.matchAll(pattern)) {
    maps.set(
      pascal(match[1]),
      [...match[2].matchAll(/"(\w+)",\s*\w+/g)].map((key) => key[1]),
    );
  }
  return maps;
}

test("every class has exactly the JSON properties aas-core reads", () => {
  const setters = mapsOf(aasCoreJsonizationSource(), /const SETTER_MAP_FOR_(\w+) = new Map\(\[([\s\S]*?)\]\);/g);
  assert.ok(setters.size > 30, "found aas-core's setter tables");
  // EventPayload is a runtime message, never part of an environment or an API body.
  const expected = [...setters.keys()].filter((name) => name !== "EventPayload").sort();
  assert.deepEqual(Object.keys(CLASSES).sort(), expected);
  for (const name of expected) {
    const keys = setters.get(name)!;
    const withoutModelType = keys.filter((key) => key !== "modelType");
    assert.deepEqual(Object.keys(CLASSES[name].properties).sort(), withoutModelType.sort(), name);
    assert.equal(CLASSES[name].hasModelType, keys.includes("modelType"), `${name}.modelType`);
  }
});

test("abstract classes dispatch to the same concrete classes as aas-core", () => {
  const dispatch = mapsOf(
    aasCoreJsonizationSource(),
    /const (\w+)_FROM_JSONABLE_DISPATCH = new Map\(\[([\s\S]*?)\]\);/g,
  );
  for (const [abstract, concrete] of Object.entries(ABSTRACT_CLASSES)) {
    assert.deepEqual([...concrete].sort(), [...dispatch.get(abstract)!].sort(), abstract);
  }
});

test("declared shapes match real JSON, and the fixtures reach every class", () => {
  const seen = new Set<string>();
  const walk = (value: unknown, ref: ClassRef, path: string) => {
    const object = value as Record<string, unknown>;
    const name = ABSTRACT_CLASSES[ref] ? String(object.modelType) : ref;
    const schema = CLASSES[name];
    assert.ok(schema, `${path}: class ${name}`);
    seen.add(name);
    for (const [key, item] of Object.entries(object)) {
      if (key === "modelType") continue;
      const shape: PropertyShape | undefined = schema.properties[key];
      assert.ok(shape, `${path}.${key} is declared`);
      if (shape === "primitive") assert.ok(typeof item !== "object", `${path}.${key} is primitive`);
      else if ("one" in shape) walk(item, shape.one, `${path}.${key}`);
      else {
        assert.ok(Array.isArray(item), `${path}.${key} is a list`);
        item.forEach((entry, index) => walk(entry, shape.many, `${path}.${key}[${index}]`));
      }
    }
  };
  const environment = exampleEnvironment();
  environment.submodels.push(richSubmodel());
  environment.assetAdministrationShells.push(richShell());
  walk(environment, "Environment", "");
  assert.deepEqual([...seen].sort(), Object.keys(CLASSES).sort());
});
