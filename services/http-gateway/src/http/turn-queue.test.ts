import assert from "node:assert/strict";
import { test } from "node:test";
import { createTurnQueue } from "./turn-queue.ts";

test("work handed in during a turn runs together in its check phase, in the order handed in", async () => {
  const inTurn = createTurnQueue();
  const seen: string[] = [];
  inTurn(() => seen.push("first"));
  inTurn(() => seen.push("second"));
  seen.push("handed in");
  await Promise.resolve();
  seen.push("microtasks");
  assert.deepEqual(seen, ["handed in", "microtasks"], "nothing runs before the check phase");
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(seen, ["handed in", "microtasks", "first", "second"]);
});

test("work handed in while a turn's work runs waits for the next turn", async () => {
  const inTurn = createTurnQueue();
  const seen: string[] = [];
  inTurn(() => {
    seen.push("a");
    inTurn(() => seen.push("later"));
  });
  inTurn(() => seen.push("b"));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(seen, ["a", "b"]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(seen, ["a", "b", "later"]);
});

test("each queue gathers on its own", async () => {
  const one = createTurnQueue();
  const other = createTurnQueue();
  const seen: string[] = [];
  one(() => seen.push("one"));
  other(() => seen.push("other"));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(seen.sort(), ["one", "other"]);
});
