import assert from "node:assert/strict";
import { test } from "node:test";
import { ECHOED_VALUE_MAX_CHARACTERS, echoed } from "./echoed-value.ts";

test("a value up to the cap is quoted whole; a longer one by its beginning and its length", () => {
  const whole = "x".repeat(ECHOED_VALUE_MAX_CHARACTERS);
  assert.equal(echoed(whole), whole);
  assert.equal(echoed("urn:a"), "urn:a");
  const long = "y".repeat(12_000);
  assert.equal(echoed(long), `${"y".repeat(ECHOED_VALUE_MAX_CHARACTERS)}… (12000 characters)`);
});

test("a value is never cut inside a surrogate pair", () => {
  const value = `${"a".repeat(ECHOED_VALUE_MAX_CHARACTERS - 1)}🙂${"b".repeat(100)}`;
  const shown = echoed(value);
  assert.ok(shown.startsWith(`${"a".repeat(ECHOED_VALUE_MAX_CHARACTERS - 1)}…`), shown);
  assert.equal(Buffer.from(shown, "utf8").toString("utf8"), shown, "no lone surrogate");
});
