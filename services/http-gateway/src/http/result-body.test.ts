import assert from "node:assert/strict";
import { test } from "node:test";
import { resultBody } from "./result-body.ts";

const now = new Date("2026-01-01T00:00:00Z");
const texts = (error: Parameters<typeof resultBody>[1]) =>
  resultBody(400, error, { includeErrorDetails: false, now }).messages.map((m) => m.text);

test("each finding is a message of its own beside the headline", () => {
  assert.deepEqual(texts({ message: "Invalid Submodel: 2 findings of 2 kinds", details: ["a.b: one", "c: two"] }), [
    "Invalid Submodel: 2 findings of 2 kinds",
    "a.b: one",
    "c: two",
  ]);
});

test("a headline that is the one finding is not repeated", () => {
  assert.deepEqual(texts({ message: "Invalid Property: value: not an xs:int", details: ["value: not an xs:int"] }), [
    "Invalid Property: value: not an xs:int",
  ]);
  assert.deepEqual(texts({ message: "Conflict", details: ["another thing"] }), ["Conflict", "another thing"]);
});
