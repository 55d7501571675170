import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "./api-error.ts";
import { parseIdempotencyKey } from "./idempotency-key.ts";

describe("Idempotency-Key header", () => {
  it("accepts the draft's quoted form and a bare token, and nothing else", () => {
    assert.equal(parseIdempotencyKey(undefined), undefined);
    assert.equal(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"'), "8e03978e-40d5-43e8-bc93-6894a57f9324");
    assert.equal(parseIdempotencyKey("  abc_DEF.123:~+/=  "), "abc_DEF.123:~+/=");
    assert.equal(parseIdempotencyKey("k".repeat(255)), "k".repeat(255));
    for (const bad of [
      "",
      '""',
      '"',
      '"open',
      'a"b',
      "a\\b",
      "a,b",
      "a b",
      "tab\tinside",
      "é",
      "k".repeat(256),
      "\u0000",
    ]) {
      assert.throws(
        () => parseIdempotencyKey(bad),
        (error: unknown) => error instanceof ApiError && error.error.code === "bad-request",
        JSON.stringify(bad),
      );
    }
  });
});
