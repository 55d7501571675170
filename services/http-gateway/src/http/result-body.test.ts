import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_MESSAGE_CHARACTERS, resultBody } from "./result-body.ts";

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

test("an Error text longer than MAX_MESSAGE_CHARACTERS keeps its start and its end, cut between them", () => {
  const value = "Z".repeat(5_000_000);
  const [text] = texts({ message: `Dimensions.Width: "${value}" is not a valid xs:double value` });
  assert.ok(text!.length <= MAX_MESSAGE_CHARACTERS + 40, `${text!.length} characters`);
  assert.match(text!, /^Dimensions\.Width: "ZZZ/);
  assert.match(text!, /ZZZ" is not a valid xs:double value$/);
  assert.match(text!, /… \(\d+ characters left out\) …/);
  // No lone surrogate at either cut.
  const wellFormed = (text: string) =>
    !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
  const emoji = "😀".repeat(2000);
  const [cut] = texts({ message: `a${emoji}` });
  assert.ok(wellFormed(cut!), "well-formed UTF-16 after the cut");
  const [shifted] = texts({ message: emoji });
  assert.ok(wellFormed(shifted!));
  // A short text is untouched.
  assert.deepEqual(texts({ message: "short" }), ["short"]);
});

test("a path echoed() already cut is not cut and counted again", () => {
  const path = `${"Z".repeat(256)}… (9000 characters)`;
  assert.deepEqual(texts({ message: "there is no element here", path }), [`there is no element here (at ${path})`]);
});
