import assert from "node:assert/strict";
import { test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { createLogger } from "./logger.ts";

function capture() {
  const writes: string[] = [];
  return { writes, destination: { write: (text: string) => writes.push(text) } };
}

test("the log lines of one turn reach the destination in one write, at the end of the turn", async () => {
  const { writes, destination } = capture();
  const logger = createLogger({ role: "test", destination, coalesce: true });
  logger.info("one");
  logger.info("two");
  assert.equal(writes.length, 0);
  await nextTurn();
  assert.equal(writes.length, 1);
  assert.deepEqual(
    writes[0]!
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).msg),
    ["one", "two"],
  );
});

test("an error line goes out at once, after the lines gathered before it", () => {
  const { writes, destination } = capture();
  const logger = createLogger({ role: "test", destination, coalesce: true });
  logger.info("before");
  logger.error("failed");
  assert.equal(writes.length, 1);
  assert.deepEqual(
    writes[0]!
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).msg),
    ["before", "failed"],
  );
});

test("flush() writes what is gathered synchronously (before the process exits)", () => {
  const { writes, destination } = capture();
  const logger = createLogger({ role: "test", destination, coalesce: true });
  logger.warn("last words");
  logger.flush();
  assert.equal(writes.length, 1);
  assert.equal(JSON.parse(writes[0]!).msg, "last words");
});

test("a destination that is not the process's stderr gets each line as it is logged", () => {
  const { writes, destination } = capture();
  const logger = createLogger({ role: "test", destination });
  logger.info("one");
  logger.info("two");
  assert.equal(writes.length, 2);
});
