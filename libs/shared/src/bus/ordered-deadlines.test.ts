import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { OrderedDeadlines } from "./ordered-deadlines.ts";

test("entries expire in the order they were added, each no earlier than its own deadline", async () => {
  const expired: { name: string; afterMs: number }[] = [];
  const added = new Map<string, number>();
  const deadlines = new OrderedDeadlines<string>(40, (name) =>
    expired.push({ name, afterMs: performance.now() - added.get(name)! }),
  );
  for (const name of ["a", "b", "c"]) {
    added.set(name, performance.now());
    deadlines.add(name);
    await sleep(15);
  }
  await sleep(80);
  assert.deepEqual(
    expired.map((e) => e.name),
    ["a", "b", "c"],
  );
  for (const { name, afterMs } of expired) assert.ok(afterMs >= 39, `${name} expired after ${afterMs} ms, not 40`);
  assert.equal(deadlines.size, 0);
});

test("an answered entry never expires; the ones after it still do", async () => {
  const expired: string[] = [];
  const deadlines = new OrderedDeadlines<string>(30, (name) => expired.push(name));
  deadlines.add("answered");
  deadlines.add("late");
  deadlines.delete("answered");
  await sleep(60);
  assert.deepEqual(expired, ["late"]);
});

test("entries added after the timer went idle get a timer again; close stops everything", async () => {
  const expired: string[] = [];
  const deadlines = new OrderedDeadlines<string>(20, (name) => expired.push(name));
  deadlines.add("first");
  await sleep(50);
  deadlines.add("second");
  await sleep(50);
  assert.deepEqual(expired, ["first", "second"]);
  deadlines.add("never");
  deadlines.close();
  await sleep(40);
  assert.deepEqual(expired, ["first", "second"]);
});

test("an expiry that throws does not keep the later entries from expiring", async () => {
  const expired: string[] = [];
  const deadlines = new OrderedDeadlines<string>(20, (name) => {
    expired.push(name);
    if (name === "bad") throw new Error("boom");
  });
  deadlines.add("bad");
  deadlines.add("good");
  await sleep(60);
  assert.deepEqual(expired, ["bad", "good"]);
});
