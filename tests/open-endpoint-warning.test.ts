/**
 * Without a security section HTTP is open (the spec's default), and the start-up log says so at
 * warn level; with one, it does not (issue 13).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { freePort, startNats } from "./test-support/servers.ts";
import { startTwinport } from "./test-support/system.ts";

type LogLine = { level: number; msg: string; banner?: { security: string } };

async function startupLog(
  extra: Record<string, unknown>,
  endpoint: Record<string, unknown> = {},
  gatewayOf?: { natsUrl: string },
): Promise<LogLine[]> {
  const cwd = mkdtempSync(join(tmpdir(), "twinport-open-warning-"));
  try {
    const endpoints = [
      {
        "@class": "endpoint.http.HttpEndpoint",
        port: await freePort(),
        host: "127.0.0.1",
        sslEnabled: false,
        ...endpoint,
      },
    ];
    writeFileSync(join(cwd, "config.json"), JSON.stringify({ endpoints, ...extra }));
    const twinport = gatewayOf
      ? await startTwinport({
          role: "http-gateway",
          cwd,
          args: ["-c", "config.json"],
          env: { TWINPORT_MESSAGEBUS_URL: gatewayOf.natsUrl },
        })
      : await startTwinport({ cwd, args: ["-c", "config.json", "--empty-model", "--endpoint", "http"] });
    await twinport.stop();
    return readFileSync(twinport.logFile, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as LogLine);
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

test("an open endpoint serving read-only profiles is announced as readable, not changeable", async () => {
  const log = await startupLog({}, { profiles: ["AAS_REPOSITORY_READ", "SUBMODEL_REPOSITORY_READ"] });
  const warning = log.find((line) => /is OPEN/.test(line.msg));
  assert.ok(warning, JSON.stringify(log));
  assert.match(warning.msg, /anyone who can reach it can read everything\. See docs\/security\.md/);
  assert.doesNotMatch(warning.msg, /change|delete|reset/);
  const banner = log.find((line) => line.banner)?.banner;
  assert.equal(
    banner?.security,
    "OPEN: no security section, so anyone who can reach an endpoint can read everything",
    JSON.stringify(log),
  );
  // Writing profiles without FAAAST_RESET: no /reset to name.
  const writes = await startupLog({}, { profiles: ["SUBMODEL_REPOSITORY_FULL"] });
  assert.match(writes.find((line) => /is OPEN/.test(line.msg))!.msg, /can read, change and delete everything\. See/);
});

test("an open http-gateway says that a model-store with rules of its own still decides", async () => {
  const nats = await startNats();
  try {
    const log = await startupLog({}, {}, { natsUrl: nats.url });
    const warning = log.find((line) => /is OPEN/.test(line.msg));
    assert.ok(warning, JSON.stringify(log));
    // Behind a secured store "DELETE /reset included" was not true: the store's rules answer 403.
    assert.match(warning.msg, /unless the model-store has a security section of its own: its rules then decide/);
  } finally {
    await nats.stop();
  }
});
