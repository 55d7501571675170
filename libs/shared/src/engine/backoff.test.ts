import assert from "node:assert/strict";
import { test } from "node:test";
import { type BackoffPolicy, backoffDelay } from "./backoff.ts";

const exact: BackoffPolicy = { baseMs: 1000, capMs: 10_000, jitter: "none" };

test("the delay doubles from the base at attempt 0 and stops at the cap", () => {
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5].map((attempt) => backoffDelay(exact, attempt)),
    [1000, 2000, 4000, 8000, 10_000, 10_000],
  );
});

test("huge, negative or fractional attempts stay within [base, cap], never Infinity or NaN", () => {
  assert.equal(backoffDelay(exact, 5000), 10_000);
  assert.equal(backoffDelay(exact, Number.MAX_SAFE_INTEGER), 10_000);
  assert.equal(backoffDelay({ ...exact, baseMs: 0 }, 5000), 0);
  assert.equal(backoffDelay(exact, -3), 1000);
  assert.equal(backoffDelay(exact, 1.7), 2000);
});

test("full jitter picks a point below the exponential delay, scaled by the random source", () => {
  const jittered: BackoffPolicy = { baseMs: 1, capMs: 50, jitter: "full" };
  assert.equal(
    backoffDelay(jittered, 3, () => 0.5),
    4,
  );
  assert.equal(
    backoffDelay(jittered, 10, () => 0.5),
    25,
  );
  assert.equal(
    backoffDelay(jittered, 10, () => 0),
    0,
  );
  for (let i = 0; i < 1000; i++) {
    const delay = backoffDelay(jittered, 4);
    assert.ok(delay >= 0 && delay < 16, String(delay));
  }
});
