import assert from "node:assert/strict";
import { test } from "node:test";
import { LosslessNumber } from "lossless-json";
import { parseJsonLossless } from "./json-text.ts";
import { isPlainObject } from "./plain-object.ts";

test("JSON objects are plain objects; arrays, null, numbers and class instances are not", () => {
  assert.equal(isPlainObject({}), true);
  assert.equal(isPlainObject(Object.create(null)), true);
  assert.equal(isPlainObject(JSON.parse('{"a":1}')), true);
  const parsed = parseJsonLossless('{"n": 12345678901234567890}') as Record<string, unknown>;
  assert.equal(isPlainObject(parsed), true);
  assert.equal(isPlainObject(parsed.n), false, "a LosslessNumber is a number, not an object");
  assert.equal(isPlainObject(new LosslessNumber("1")), false);
  for (const value of [null, undefined, [], [1], "x", 1, true, new Date(0), new Map(), new (class Point {})()]) {
    assert.equal(isPlainObject(value), false, String(value));
  }
});
