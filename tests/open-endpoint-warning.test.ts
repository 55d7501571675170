/**
 * Without a security section HTTP is open (the spec's default), and the start-up log says so at
 * warn level; with one, it does not (issue 13).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { freePort } from "./test-support/servers.ts";
import { startTwinport } from "./test-support/system.ts";

async function startupLog(extra: Record<string, unknown>): Promise<{ level: number; msg: string }[]> {
  const cwd = mkdtempSync(join(tmpdir(), "twinport-open-warning-"));
  try {
    const endpoints = [
      { "@class": "endpoint.http.HttpEndpoint", port: await freePort(), host: "127.0.0.1", sslEnabled: false },
    ];
    writeFileSync(join(cwd, "config.json"), JSON.stringify({ endpoints, ...extra }));
    const twinport = await startTwinport({ cwd, args: ["-c", "config.json", "--empty-model", "--endpoint", "http"] });
    await twinport.stop();
    return readFileSync(twinport.logFile, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { level: number; msg: string });
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

test("an open HTTP endpoint is announced at warn level; a secured one is not", async () => {
  const open = await startupLog({});
  const warning = open.find((line) => /is OPEN/.test(line.msg));
  assert.ok(warning, JSON.stringify(open));
  assert.equal(warning.level, 40);
  assert.match(warning.msg, /anyone who can reach it can read, change and delete everything/);
  const secured = await startupLog({
    security: { rules: [{ subjects: [{ anonymous: true }], rights: ["READ"], objects: [{ all: true }] }] },
  });
  assert.equal(
    secured.find((line) => /is OPEN/.test(line.msg)),
    undefined,
  );
});
