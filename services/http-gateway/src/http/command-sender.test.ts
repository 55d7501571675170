import assert from "node:assert/strict";
import { test } from "node:test";
import { withoutUndefined } from "./command-sender.ts";

test("withoutUndefined drops undefined properties only, keeps the order and every other value", () => {
  const params = {
    submodelId: "urn:a",
    idShortPath: undefined,
    body: "42",
    preconditions: undefined,
    modifiers: { content: "value" },
    empty: "",
    zero: 0,
    none: null,
    no: false,
  };
  const copy = withoutUndefined(params);
  assert.deepEqual(Object.keys(copy), ["submodelId", "body", "modifiers", "empty", "zero", "none", "no"]);
  assert.equal(
    JSON.stringify(copy),
    '{"submodelId":"urn:a","body":"42","modifiers":{"content":"value"},"empty":"","zero":0,"none":null,"no":false}',
  );
  assert.equal(copy.modifiers, params.modifiers, "nested values are the caller's, not copies");
  assert.notEqual(copy, params, "a new object: the caller's stays as it was");
  assert.ok("idShortPath" in params);
});
