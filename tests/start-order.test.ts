/**
 * Start order does not matter (Kubernetes has no depends_on; Redis may restart or still load its
 * data): a model-store started before Redis waits for it instead of exiting (one warning per
 * reason, /health 200 and /ready 503 meanwhile), and once Redis answers it seeds the model (-m) and
 * serves it to the gateways; a Redis restart while it loads the model is waited out the same way;
 * embedded mode on Redis does the same; an opcua-gateway started before any model-store waits for one. Real processes throughout: redis-server, nats-server, the roles.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { encodeBase64Url } from "@twinport/shared";
import { eventually } from "./test-support/eventually.ts";
import { createHttpClient } from "./test-support/http-client.ts";
import { manyShellsIds, writeManyShellsModel } from "./test-support/many-shells-model.ts";
import { freePort, type RunningServer, startNats, startRedis } from "./test-support/servers.ts";
import { EXAMPLE_MODEL, findCertificate, startTwinport, type TwinportProcess } from "./test-support/system.ts";

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function status(url: string): Promise<number> {
  try {
    return (await fetch(url)).status;
  } catch {
    return 0;
  }
}

const warnings = (logFile: string): string[] =>
  readFileSync(logFile, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((entry) => entry.level === 40 && /does not answer|no model-store answers yet/.test(entry.msg))
    .map((entry) => entry.msg);

/** nats-server running, Redis not yet: the model-store with -m is spawned, not awaited. */
async function storeBeforeRedis() {
  const nats = await startNats();
  cleanups.push(() => nats.stop());
  const redisPort = await freePort();
  const managementPort = await freePort();
  const cwd = mkdtempSync(join(tmpdir(), "twinport-store-before-redis-"));
  cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
  const env = {
    TWINPORT_PERSISTENCE_URL: `redis://127.0.0.1:${redisPort}`,
    TWINPORT_MESSAGEBUS_URL: nats.url,
  };
  let child: ChildProcess | undefined;
  const started = startTwinport({
    role: "model-store",
    cwd,
    args: ["-m", EXAMPLE_MODEL],
    env: { ...env, TWINPORT_CORE_MANAGEMENTPORT: String(managementPort) },
    timeoutMs: 60_000,
    onSpawn: (spawned) => (child = spawned),
  });
  started.catch(() => undefined); // a test that stops it first looks at the exit instead
  cleanups.push(async () => void child?.kill("SIGKILL"));
  const management = `http://127.0.0.1:${managementPort}`;
  return { nats, redisPort, env, started, child: () => child!, management, logFile: join(cwd, "model-store.log") };
}

test("a model-store with -m started before Redis waits for it (/health 200, /ready 503, one warning), then seeds and serves the model through a gateway", async () => {
  const store = await storeBeforeRedis();
  await eventually(
    () => status(`${store.management}/health`),
    (code) => code === 200,
    "/health while waiting",
    30_000,
  );
  assert.equal(await status(`${store.management}/ready`), 503);
  // Several reconnect attempts (ioredis retries within a second) and still alive, one warning.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.equal(store.child().exitCode, null, readFileSync(store.logFile, "utf8"));
  assert.equal(warnings(store.logFile).length, 1, readFileSync(store.logFile, "utf8"));
  assert.match(
    warnings(store.logFile)[0]!,
    /^Redis at redis:\/\/127\.0\.0\.1:\d+ does not answer \(.*ECONNREFUSED.*\)/,
  );

  let redis: RunningServer | undefined = await startRedis({ port: store.redisPort });
  cleanups.push(() => redis?.stop());
  const ready: TwinportProcess = await store.started;
  cleanups.push(async () => void (await ready.stop()));
  assert.deepEqual((ready.details as { model: { shells: number } }).model.shells, 3);
  assert.equal(await status(`${store.management}/ready`), 200);

  const gatewayPort = await freePort();
  const gatewayDir = mkdtempSync(join(tmpdir(), "twinport-gateway-"));
  cleanups.push(() => rmSync(gatewayDir, { recursive: true, force: true }));
  writeFileSync(
    join(gatewayDir, "config.json"),
    JSON.stringify({
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: gatewayPort, host: "127.0.0.1", sslEnabled: true }],
    }),
  );
  const gateway = await startTwinport({
    role: "http-gateway",
    cwd: gatewayDir,
    args: ["-c", "config.json"],
    env: store.env,
  });
  cleanups.push(async () => void (await gateway.stop()));
  const client = createHttpClient(`https://127.0.0.1:${gatewayPort}/api/v3.0`, { ca: findCertificate(gatewayDir) });
  cleanups.push(() => client.close());
  const shells = await client.get("/shells");
  assert.equal(shells.status, 200, shells.text);
  assert.equal((shells.json() as { result: unknown[] }).result.length, 3);
  assert.equal(await ready.stop(), 0);
  await redis.stop();
  redis = undefined;
});

test("SIGTERM while the model-store waits for Redis ends it at once with exit code 0", async () => {
  const store = await storeBeforeRedis();
  await eventually(
    () => warnings(store.logFile).length,
    (count) => count === 1,
    "the waiting warning",
    30_000,
  );
  const exited = new Promise<number | null>((resolve) => store.child().once("exit", (code) => resolve(code)));
  const signalledAt = Date.now();
  store.child().kill("SIGTERM");
  assert.equal(await exited, 0);
  assert.ok(Date.now() - signalledAt < 2000, `exited ${Date.now() - signalledAt} ms after SIGTERM`);
  await assert.rejects(store.started, /exited with 0 before ready/);
});

test("embedded on Redis persistence started before Redis waits for it the same way, then loads the model and serves it", async () => {
  const redisPort = await freePort();
  const port = await freePort();
  const cwd = mkdtempSync(join(tmpdir(), "twinport-embedded-before-redis-"));
  cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
  let child: ChildProcess | undefined;
  const started = startTwinport({
    cwd,
    args: [
      "-m",
      EXAMPLE_MODEL,
      "--endpoint",
      "http",
      `endpoints[0].port=${port}`,
      "endpoints[0].host=127.0.0.1",
      "endpoints[0].sslEnabled=false",
      "core.managementPort=-1",
      `persistence={"@class":"persistence.redis.PersistenceRedis","url":"redis://127.0.0.1:${redisPort}"}`,
    ],
    timeoutMs: 60_000,
    onSpawn: (spawned) => (child = spawned),
  });
  started.catch(() => undefined);
  cleanups.push(async () => void child?.kill("SIGKILL"));
  const logFile = join(cwd, "embedded.log");
  await eventually(
    () => warnings(logFile).length,
    (count) => count === 1,
    "the waiting warning",
    30_000,
  );
  assert.equal(child!.exitCode, null);
  const redis = await startRedis({ port: redisPort });
  cleanups.push(() => redis.stop());
  const embedded = await started;
  cleanups.push(async () => void (await embedded.stop()));
  const client = createHttpClient(`http://127.0.0.1:${port}/api/v3.0`);
  cleanups.push(() => client.close());
  const shells = await client.get("/shells");
  assert.equal(shells.status, 200, shells.text);
  assert.equal((shells.json() as { result: unknown[] }).result.length, 3);
});

test("an opcua-gateway started before any model-store waits for one (one warning), then builds its address space", async () => {
  const nats = await startNats();
  cleanups.push(() => nats.stop());
  const tcpPort = await freePort();
  const cwd = mkdtempSync(join(tmpdir(), "twinport-opcua-before-store-"));
  cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
  let child: ChildProcess | undefined;
  const started = startTwinport({
    role: "opcua-gateway",
    cwd,
    args: [
      "--endpoint",
      "opcua",
      `endpoints[0].tcpPort=${tcpPort}`,
      "endpoints[0].host=127.0.0.1",
      "endpoints[0].hostname=127.0.0.1",
      "endpoints[0].secondsTillShutdown=0",
      "core.managementPort=-1",
    ],
    env: { TWINPORT_MESSAGEBUS_URL: nats.url },
    timeoutMs: 90_000,
    onSpawn: (spawned) => (child = spawned),
  });
  started.catch(() => undefined);
  cleanups.push(async () => void child?.kill("SIGKILL"));
  const logFile = join(cwd, "opcua-gateway.log");
  await eventually(
    () => warnings(logFile).length,
    (count) => count >= 1,
    "the waiting warning",
    60_000,
  );
  await new Promise((resolve) => setTimeout(resolve, 2500));
  assert.equal(child!.exitCode, null, readFileSync(logFile, "utf8"));
  assert.equal(warnings(logFile).length, 1, readFileSync(logFile, "utf8"));

  const redis = await startRedis();
  cleanups.push(() => redis.stop());
  const store = await startTwinport({
    role: "model-store",
    args: ["-m", EXAMPLE_MODEL],
    env: { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url },
  });
  cleanups.push(async () => void (await store.stop()));
  const gateway = await started;
  assert.deepEqual(gateway.details, { opcua: [`opc.tcp://127.0.0.1:${tcpPort}`] });
  assert.equal(await gateway.stop(), 0);
});

test("Redis restarting while the model-store loads its model files is waited out: it loads the model once Redis is back", async () => {
  const nats = await startNats();
  cleanups.push(() => nats.stop());
  const cwd = mkdtempSync(join(tmpdir(), "twinport-redis-restart-while-seeding-"));
  cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
  // Large enough that writing it to Redis takes seconds: the restart lands in the middle.
  const model = join(cwd, "model.json");
  writeManyShellsModel(model, 3000, 20);
  const redisPort = await freePort();
  let redis = await startRedis({ port: redisPort });
  cleanups.push(() => redis.stop());
  let child: ChildProcess | undefined;
  const started = startTwinport({
    role: "model-store",
    cwd,
    args: ["-m", model, "core.progressIntervalMs=100"],
    env: { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url, TWINPORT_CORE_MANAGEMENTPORT: "-1" },
    timeoutMs: 120_000,
    onSpawn: (spawned) => (child = spawned),
  });
  started.catch(() => undefined);
  cleanups.push(async () => void child?.kill("SIGKILL"));
  const logFile = join(cwd, "model-store.log");
  // The progress of the writes (not of reading and checking the files, which comes first).
  await eventually(
    () => readFileSync(logFile, "utf8"),
    (log) => /"task":"loading the model files","done"/.test(log),
    "the model files being written",
    60_000,
  );
  await redis.stop();
  redis = await startRedis({ port: redisPort });
  const store = await started;
  cleanups.push(async () => void (await store.stop()));
  assert.equal((store.details as { model: { shells: number } }).model.shells, 3000);
  assert.match(readFileSync(logFile, "utf8"), /Redis went away while the model files were loading/);
  // What the store serves, through a gateway: the first and the last submodel are there.
  const port = await freePort();
  const gateway = await startTwinport({
    role: "http-gateway",
    args: [
      "--endpoint",
      "http",
      `endpoints[0].port=${port}`,
      "endpoints[0].host=127.0.0.1",
      "endpoints[0].sslEnabled=false",
    ],
    env: { TWINPORT_MESSAGEBUS_URL: nats.url, TWINPORT_CORE_MANAGEMENTPORT: "-1" },
  });
  cleanups.push(async () => void (await gateway.stop()));
  const client = createHttpClient(`http://127.0.0.1:${port}/api/v3.0`);
  cleanups.push(() => client.close());
  for (const [n, property, value] of [
    [0, "P0", 0],
    [2999, "P19", 3018],
  ] as const) {
    const answer = await client.get(
      `/submodels/${encodeBase64Url(manyShellsIds(n).submodel)}/submodel-elements/${property}/$value`,
    );
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json(), { [property]: value });
  }
  assert.equal(await store.stop(), 0);
});

test("an http-gateway started before NATS says what it waits for, then serves once NATS is up", async () => {
  const natsPort = await freePort();
  const port = await freePort();
  const cwd = mkdtempSync(join(tmpdir(), "twinport-gateway-before-nats-"));
  cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
  writeFileSync(
    join(cwd, "config.json"),
    JSON.stringify({
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
    }),
  );
  let child: ChildProcess | undefined;
  const started = startTwinport({
    role: "http-gateway",
    cwd,
    args: ["-c", "config.json"],
    env: { TWINPORT_MESSAGEBUS_URL: `nats://127.0.0.1:${natsPort}`, TWINPORT_CORE_MANAGEMENTPORT: "-1" },
    timeoutMs: 60_000,
    onSpawn: (spawned) => (child = spawned),
  });
  started.catch(() => undefined);
  cleanups.push(async () => void child?.kill("SIGKILL"));
  const logFile = join(cwd, "http-gateway.log");
  // Silent before: nothing in the log said why the process did not get ready.
  await eventually(
    () => {
      try {
        return readFileSync(logFile, "utf8");
      } catch {
        return "";
      }
    },
    (log) => log.includes(`waiting for NATS at nats://127.0.0.1:${natsPort}`),
    "a line naming the NATS it waits for",
    20_000,
  );
  const nats = await startNats({ port: natsPort });
  cleanups.push(() => nats.stop());
  const gateway = await started;
  cleanups.push(async () => void (await gateway.stop()));
  assert.deepEqual(gateway.details.http, [`http://127.0.0.1:${port}/api/v3.0`]);
});
