/**
 * Embedded mode on Redis persistence, black-box: its /metrics show the Redis backend's state
 * (twinport_backend_up{backend="redis"}, as the model-store's do) and the commit path's metrics,
 * and its /ready, as the model-store's, asks whether Redis answers, not only whether it is connected.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { encodeBase64Url } from "@twinport/shared";
import { eventually } from "./test-support/eventually.ts";
import { createHttpClient } from "./test-support/http-client.ts";
import { freePort, startRedis } from "./test-support/servers.ts";
import { EXAMPLE_MODEL, startTwinport } from "./test-support/system.ts";

const VALUE = `/submodels/${encodeBase64Url("https://example.org/submodels/technical-data-1")}/submodel-elements/MaxRotationSpeed/$value`;

/** The value of the sample `name{…}` whose labels include `label` (in any order), or undefined. */
function sample(metrics: string, name: string, label: string): number | undefined {
  const line = metrics.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(label));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

test('embedded on Redis: twinport_backend_up{backend="redis"} follows Redis; the commit calls are counted', async () => {
  const redis = await startRedis();
  const cwd = mkdtempSync(join(tmpdir(), "twinport-embedded-redis-metrics-"));
  const port = await freePort();
  const twinport = await startTwinport({
    cwd,
    args: [
      "-m",
      EXAMPLE_MODEL,
      "--endpoint",
      "http",
      `endpoints[0].port=${port}`,
      "endpoints[0].host=127.0.0.1",
      "endpoints[0].sslEnabled=false",
      "core.managementPort=0",
      `persistence={"@class":"persistence.redis.PersistenceRedis","url":"${redis.url}"}`,
    ],
  });
  const client = createHttpClient(`http://127.0.0.1:${port}/api/v3.0`);
  const metrics = async () => (await fetch(`${twinport.details.management as string}/metrics`)).text();
  try {
    assert.equal((await client.request("PATCH", VALUE, { body: "4321" })).status, 204);
    const up = await metrics();
    assert.equal(sample(up, "twinport_backend_up", 'backend="redis"'), 1, up);
    assert.ok((sample(up, "twinport_store_commit_call_seconds_count", 'outcome="answered"') ?? 0) >= 1, up);
    await redis.stop();
    const deadline = Date.now() + 10_000;
    let down: number | undefined;
    while (Date.now() < deadline && (down = sample(await metrics(), "twinport_backend_up", 'backend="redis"')) !== 0)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(down, 0, "the gauge follows Redis going away");
  } finally {
    client.close();
    await twinport.stop();
    await redis.stop();
    rmSync(cwd, { recursive: true, force: true });
  }
});

test("embedded on Redis: a Redis that keeps its connection but does not answer (SIGSTOP) makes /ready 503 redis:false and the gauge 0, until it answers again", async () => {
  const redis = await startRedis();
  const cwd = mkdtempSync(join(tmpdir(), "twinport-embedded-redis-ready-"));
  const port = await freePort();
  const twinport = await startTwinport({
    cwd,
    args: [
      "-m",
      EXAMPLE_MODEL,
      "--endpoint",
      "http",
      `endpoints[0].port=${port}`,
      "endpoints[0].host=127.0.0.1",
      "endpoints[0].sslEnabled=false",
      "core.managementPort=0",
      `persistence={"@class":"persistence.redis.PersistenceRedis","url":"${redis.url}"}`,
    ],
  });
  const management = twinport.details.management as string;
  const ready = async () => {
    const response = await fetch(`${management}/ready`);
    return { status: response.status, body: (await response.json()) as { checks?: Record<string, boolean> } };
  };
  const gauge = async () =>
    sample(await (await fetch(`${management}/metrics`)).text(), "twinport_backend_up", 'backend="redis"');
  let stopped = false;
  try {
    assert.deepEqual(await ready(), { status: 200, body: { status: "ready", checks: { redis: true } } });
    process.kill(redis.pid, "SIGSTOP");
    stopped = true;
    // A PING every 2 s, unanswered for 1 s: not ready within ~3 s; the connection stays up all along.
    const down = await eventually(ready, (r) => r.status === 503, "/ready turns 503 while Redis is stopped", 8_000);
    assert.equal(down.body.checks?.redis, false, JSON.stringify(down.body));
    await eventually(gauge, (up) => up === 0, "the gauge turns 0 while Redis is stopped", 8_000);
    process.kill(redis.pid, "SIGCONT");
    stopped = false;
    await eventually(ready, (r) => r.status === 200, "/ready turns 200 once Redis answers again", 8_000);
    await eventually(gauge, (up) => up === 1, "the gauge turns 1 once Redis answers again", 8_000);
  } finally {
    if (stopped) process.kill(redis.pid, "SIGCONT");
    await twinport.stop();
    await redis.stop();
    rmSync(cwd, { recursive: true, force: true });
  }
});
