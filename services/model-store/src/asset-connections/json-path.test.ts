import assert from "node:assert/strict";
import { test } from "node:test";
import { parseJsonLossless } from "@twinport/shared";
import { compileJsonPath, JsonPathError, queryOne } from "./json-path.ts";
import { fillTemplate } from "./payload-template.ts";

const document = parseJsonLossless(
  JSON.stringify({
    data: { temp: 21.5, "odd key": "x", nested: { deep: { v: true } } },
    items: [
      { id: "a", v: 1 },
      { id: "b", v: 2 },
      { id: "c", v: 3 },
    ],
  }).replace('"v":3', '"v":12345678901234567890'),
);

const all = (path: string) => compileJsonPath(path).evaluate(document);
const text = (value: unknown) =>
  typeof value === "object" && value !== null && "value" in value ? (value as { value: string }).value : value;

test("child, bracket, index, negative index, slice, wildcard, descent", () => {
  assert.equal(text(queryOne(document, compileJsonPath("$.data.temp"))), "21.5");
  assert.equal(queryOne(document, compileJsonPath("$['data']['odd key']")), "x");
  assert.equal(queryOne(document, compileJsonPath("$.items[1].id")), "b");
  assert.equal(queryOne(document, compileJsonPath("$.items[-1].id")), "c");
  assert.deepEqual(all("$.items[0:2].id"), ["a", "b"]);
  assert.deepEqual(all("$.items[*].id"), ["a", "b", "c"]);
  assert.deepEqual(all("$..id"), ["a", "b", "c"]);
  assert.equal(queryOne(document, compileJsonPath("$..deep.v")), true);
  assert.deepEqual(all("$.items[0,2].id"), ["a", "c"]);
});

test("filters compare numbers and strings; big numbers keep their digits", () => {
  assert.equal(queryOne(document, compileJsonPath("$.items[?(@.id == 'b')].v")) !== undefined, true);
  assert.deepEqual(all("$.items[?(@.v > 1 && @.id != 'c')].id"), ["b"]);
  assert.deepEqual(all("$.items[?(@.id == 'a' || @.id == \"c\")].id"), ["a", "c"]);
  assert.equal(text(queryOne(document, compileJsonPath("$.items[?(@.id == 'c')].v"))), "12345678901234567890");
  assert.deepEqual(all("$.data[?(@.deep)]").length, 1);
});

test("exactly one match, or an error naming the query", () => {
  assert.throws(() => queryOne(document, compileJsonPath("$.nothing")), /matched nothing \(exactly one is needed\)/);
  assert.throws(() => queryOne(document, compileJsonPath("$.items[*].id")), /matched 3 values/);
  assert.throws(() => compileJsonPath("data.temp"), JsonPathError);
  assert.throws(() => compileJsonPath("$.items[?(@.v ~ 1)]"), /Invalid JSONPath/);
});

test("filter text is never run as code", () => {
  assert.throws(() => compileJsonPath("$.items[?(process.exit(1))]"), JsonPathError);
});

test("big numbers compare in filters and come back with every digit; a __proto__ key is a member", () => {
  const payload = parseJsonLossless(
    '{"readings": [{"n": 12345678901234567891, "at": 1}, {"n": 2, "at": 2}], "__proto__": {"x": 1}}',
    { foreign: true },
  );
  assert.equal(text(queryOne(payload, compileJsonPath("$.readings[?@.n > 1e19].n"))), "12345678901234567891");
  assert.deepEqual(all("$.items[?@.v > 2].id"), ["c"]);
  assert.equal(text(queryOne(payload, compileJsonPath("$['__proto__'].x"))), "1");
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

test("an invalid query fails when it is compiled, naming the query", () => {
  assert.throws(
    () => compileJsonPath("$.items[?@.v >]"),
    (error: Error) => error instanceof JsonPathError && /Invalid JSONPath "\$\.items\[\?@\.v >\]"/.test(error.message),
  );
});

test("templates: literal replacement, unknown placeholders kept", () => {
  const values = new Map([
    ["value", '"a$1\\\\b"'],
    ["n", "5"],
  ]);
  assert.equal(
    fillTemplate('{"v": ${value}, "n": ${n}, "x": ${other}}', values),
    '{"v": "a$1\\\\b", "n": 5, "x": ${other}}',
  );
});
