import assert from "node:assert/strict";
import { test } from "node:test";
import { SystemDate, systemClock } from "./clock.ts";

/** What a plain Date says for the same instant. */
const plain = (ms: number) => new Date(ms).toISOString();

test("the system clock's dates give Date's own ISO form, from the per-second cache as from a miss", () => {
  const base = Date.UTC(2026, 10, 27, 1, 2, 3);
  // Within one second (cache hits after the first), across its end, and every millisecond width.
  for (const offset of [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 1010, 59_999, 60_000, 86_399_999, 86_400_000]) {
    assert.equal(new SystemDate(base + offset).toISOString(), plain(base + offset), `offset ${offset}`);
  }
  // Back and forth between seconds: a hit never serves another second's prefix.
  for (const ms of [base + 5, base - 995, base + 7, base + 1_000_123, base + 8]) {
    assert.equal(new SystemDate(ms).toISOString(), plain(ms));
  }
});

test("before 1970, far years and the epoch format as Date does; an invalid date throws as Date does", () => {
  for (const ms of [
    0,
    -1,
    -999,
    -1000,
    -1001,
    Date.UTC(1969, 11, 31, 23, 59, 59, 999),
    Date.UTC(1, 0, 1),
    Date.UTC(-271_821, 3, 20),
    Date.UTC(275_760, 8, 13),
    Date.UTC(10_000, 0, 1, 0, 0, 0, 5),
  ]) {
    assert.equal(new SystemDate(ms).toISOString(), plain(ms), `ms ${ms}`);
    assert.equal(new SystemDate(ms).toISOString(), plain(ms), `ms ${ms} again (cached)`);
  }
  assert.throws(() => new SystemDate(Number.NaN).toISOString(), RangeError);
});

test("random instants agree with Date, and JSON and the Date API see a Date", () => {
  let ms = Date.UTC(2024, 0, 1);
  for (let i = 0; i < 20_000; i++) {
    // Mostly small steps (the cache's case under load), now and then a jump of days.
    ms += i % 97 === 0 ? Math.floor(Math.random() * 1e9) : Math.floor(Math.random() * 3);
    assert.equal(new SystemDate(ms).toISOString(), plain(ms));
  }
  const now = systemClock.now();
  assert.ok(now instanceof Date);
  assert.equal(JSON.stringify({ at: now }), JSON.stringify({ at: new Date(now.getTime()) }));
  assert.ok(Math.abs(now.getTime() - Date.now()) < 1000);
});
