import assert from "node:assert/strict";
import { test } from "node:test";
import { LosslessNumber } from "lossless-json";
import { mergePatch } from "./merge-patch.ts";

// The test cases of RFC 7386 Appendix A, each [target, patch, result].
const RFC_7386_EXAMPLES: [unknown, unknown, unknown][] = [
  [{ a: "b" }, { a: "c" }, { a: "c" }],
  [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
  [{ a: "b" }, { a: null }, {}],
  [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
  [{ a: ["b"] }, { a: "c" }, { a: "c" }],
  [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
  [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
  [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
  [
    ["a", "b"],
    ["c", "d"],
    ["c", "d"],
  ],
  [{ a: "b" }, ["c"], ["c"]],
  [{ a: "foo" }, null, null],
  [{ a: "foo" }, "bar", "bar"],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: "b", c: null }, { a: "b" }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

test("RFC 7386 Appendix A examples", () => {
  for (const [target, patch, expected] of RFC_7386_EXAMPLES) {
    assert.deepEqual(mergePatch(target, patch), expected, `${JSON.stringify(target)} + ${JSON.stringify(patch)}`);
  }
});

test("arrays are replaced whole, never merged item by item", () => {
  const target = {
    submodelElements: [
      { idShort: "A", value: "1" },
      { idShort: "B", value: "2" },
    ],
  };
  assert.deepEqual(mergePatch(target, { submodelElements: [{ idShort: "B", value: "3" }] }), {
    submodelElements: [{ idShort: "B", value: "3" }],
  });
});

test("neither argument is modified; untouched members are shared", () => {
  const nested = { keys: [{ type: "GlobalReference", value: "x" }] };
  const target = { semanticId: nested, idShort: "a", description: [{ language: "en", text: "t" }] };
  const patch = { idShort: "b", description: null };
  const before = structuredClone(target);
  const result = mergePatch(target, patch) as Record<string, unknown>;
  assert.deepEqual(target, before);
  assert.deepEqual(patch, { idShort: "b", description: null });
  assert.equal(result.semanticId, nested);
  assert.deepEqual(result, { semanticId: nested, idShort: "b" });
});

test("a LosslessNumber is a value, not an object to merge into", () => {
  const number = new LosslessNumber("12345678901234567890.5");
  assert.equal((mergePatch({ value: { x: 1 } }, { value: number }) as { value: unknown }).value, number);
});
