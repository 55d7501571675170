import assert from "node:assert/strict";
import { test } from "node:test";
import { routeConsoleToLog } from "./console-to-log.ts";
import { createLogger } from "./logger.ts";

test("console output of libraries becomes JSON log lines on the log's destination, without colour codes", () => {
  const lines: string[] = [];
  const saved = { ...console };
  const logger = createLogger({ role: "test", destination: { write: (text: string) => lines.push(text) } });
  try {
    routeConsoleToLog(logger);
    console.log("\u001b[33m        could not restrict permissions on \u001b[39m", "/data/PKI/key.pem", "EROFS");
    console.warn("careful %d", 3);
  } finally {
    Object.assign(console, saved);
  }
  const parsed = lines
    .join("")
    .trim()
    .split("\n")
    .map((text) => JSON.parse(text));
  assert.equal(parsed.length, 2);
  assert.equal(parsed[0].component, "console");
  assert.equal(parsed[0].msg, "could not restrict permissions on  /data/PKI/key.pem EROFS");
  assert.equal(parsed[1].msg, "careful 3");
  assert.equal(parsed[1].level, 40, "warn");
});
