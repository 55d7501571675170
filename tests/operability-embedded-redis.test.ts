/**
 * Embedded mode on Redis persistence, black-box: its /metrics show the Redis backend's state
 * (twinport_backend_up{backend="redis"}, as the model-store's do) and the commit path's metrics.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { encodeBase64Url } from "@twinport/shared";
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
