/**
 * Embedded mode on Redis persistence when Redis comes back EMPTY (docs/adr/0018, amendment "Redis
 * that comes back empty"): one process holds the store's caches, the read cache and the OPC UA
 * mirror, so it does what a model-store does: an error line about the lost data, and exit code 1
 * for its restart, which loads the -m model again into the new store incarnation.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { encodeBase64Url } from "@twinport/shared";
import { createHttpClient } from "./test-support/http-client.ts";
import { freePort, startRedis } from "./test-support/servers.ts";
import { EXAMPLE_MODEL, startTwinport } from "./test-support/system.ts";

const VALUE = `/submodels/${encodeBase64Url("https://example.org/submodels/technical-data-1")}/submodel-elements/MaxRotationSpeed/$value`;

test("embedded on Redis: Redis restarted empty makes it log the lost data and exit 1; its restart loads the model again", async () => {
  // Without persistence a restarted Redis is an empty one (as after a lost volume).
  let redis = await startRedis();
  const cwd = mkdtempSync(join(tmpdir(), "twinport-embedded-redis-wiped-"));
  const port = await freePort();
  const args = [
    "-m",
    EXAMPLE_MODEL,
    "--endpoint",
    "http",
    `endpoints[0].port=${port}`,
    "endpoints[0].host=127.0.0.1",
    "endpoints[0].sslEnabled=false",
    "core.managementPort=-1",
    `persistence={"@class":"persistence.redis.PersistenceRedis","url":"${redis.url}"}`,
  ];
  let twinport = await startTwinport({ cwd, args });
  const client = createHttpClient(`http://127.0.0.1:${port}/api/v3.0`);
  try {
    assert.equal((await client.request("PATCH", VALUE, { body: "4321" })).status, 204);
    assert.deepEqual((await client.get(VALUE)).json(), { MaxRotationSpeed: 4321 });
    const redisPort = redis.port;
    process.kill(redis.pid, "SIGKILL");
    await redis.stop();
    redis = await startRedis({ port: redisPort });

    const exited = await Promise.race([
      new Promise<number | null>((resolve) => twinport.child.once("exit", (code) => resolve(code))),
      new Promise<"running">((resolve) => setTimeout(() => resolve("running"), 15_000)),
    ]);
    // Still running means it went on serving from its caches and mirror as if nothing was lost.
    const served = exited === "running" ? (await client.get(VALUE)).text : "";
    assert.equal(exited, 1, `the process exits with code 1 (it answered ${served})`);
    const errors = readFileSync(twinport.logFile, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level >= 50);
    assert.ok(
      errors.some((line) => /Redis lost the store's data/.test(line.msg)),
      `an error line about the lost data: ${JSON.stringify(errors)}`,
    );

    // Restarted (as its orchestrator would): the model as loaded from the file, not the lost write.
    twinport = await startTwinport({ cwd, args });
    assert.notDeepEqual((await client.get(VALUE)).json(), { MaxRotationSpeed: 4321 });
    assert.equal((await client.get(VALUE)).status, 200);
  } finally {
    client.close();
    await twinport.stop();
    await redis.stop();
    rmSync(cwd, { recursive: true, force: true });
  }
});
