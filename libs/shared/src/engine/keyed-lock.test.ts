import assert from "node:assert/strict";
import { test } from "node:test";
import { KeyedLock } from "./keyed-lock.ts";

test("tasks with the same key run one at a time, in order; other keys run alongside", async () => {
  const lock = new KeyedLock();
  const log: string[] = [];
  let active = 0;
  let maxActive = 0;
  const task = (name: string, ms: number) => async () => {
    active++;
    maxActive = Math.max(maxActive, active);
    log.push(`start ${name}`);
    await new Promise((r) => setTimeout(r, ms));
    log.push(`end ${name}`);
    active--;
    return name;
  };
  const results = await Promise.all([
    lock.run("a", task("a1", 20)),
    lock.run("a", task("a2", 1)),
    lock.run("b", task("b1", 5)),
  ]);
  assert.deepEqual(results, ["a1", "a2", "b1"]);
  assert.ok(log.indexOf("end a1") < log.indexOf("start a2"), "a2 waits for a1");
  assert.ok(log.indexOf("start b1") < log.indexOf("end a1"), "b1 does not wait for a1");
  assert.equal(maxActive, 2);
  assert.equal(lock.size, 0, "no keys left behind");
});

test("a failing task does not block the next one", async () => {
  const lock = new KeyedLock();
  await assert.rejects(
    lock.run("k", async () => {
      throw new Error("boom");
    }),
    /boom/,
  );
  assert.equal(await lock.run("k", async () => 42), 42);
  assert.equal(lock.size, 0);
});
