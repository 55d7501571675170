import assert from "node:assert/strict";
import { test } from "node:test";
import type { Logger } from "@twinport/shared";
import { keeperProblems } from "./keeper-problems.ts";

test("the keeper's failures are warnings with fields, once per distinct problem, again after a minute", () => {
  const lines: [Record<string, unknown>, string][] = [];
  const logger = { warn: (fields: Record<string, unknown>, message: string) => lines.push([fields, message]) };
  let clock = 0;
  const report = keeperProblems(logger as unknown as Logger, () => clock);
  const down = new Error("Redis is unavailable: Stream isn't writeable");
  report(down);
  clock += 1000;
  report(down);
  clock += 30_000;
  report(down);
  assert.equal(lines.length, 1, "a second per second of the same outage is not logged");
  assert.deepEqual(lines[0]![0], { component: "outbox-keeper", reason: down.message });
  report(new Error("NOAUTH Authentication required"));
  assert.equal(lines.length, 2, "another problem is logged at once");
  clock += 61_000;
  report(new Error("NOAUTH Authentication required"));
  assert.equal(lines.length, 3, "the same problem again after a minute");
});
