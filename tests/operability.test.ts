/**
 * Operability of the distributed processes, black-box: the management port of each (health, ready,
 * Prometheus metrics), JSON logs carrying the correlation id from the HTTP request through NATS into
 * the model-store and the event, and a graceful SIGTERM that lets an in-flight request finish.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type ChangeEvent, connectNats, createNatsEventBus, encodeBase64Url } from "@twinport/shared";
import { createHttpClient, type HttpClient } from "./test-support/http-client.ts";
import { connectOpcua } from "./test-support/opcua-client.ts";
import { freePort, type RunningServer, startNats, startRedis } from "./test-support/servers.ts";
import { EXAMPLE_MODEL, startTwinport, type TwinportProcess } from "./test-support/system.ts";

const SUBMODEL = "https://example.org/submodels/technical-data-1";
const VALUE_PATH = `/submodels/${encodeBase64Url(SUBMODEL)}/submodel-elements/MaxRotationSpeed/$value`;
const dirs: string[] = [];
let redis: RunningServer;
let nats: RunningServer;
let store: TwinportProcess;
let gateway: TwinportProcess;
let opcua: TwinportProcess;
let client: HttpClient;
let opcuaUrl: string;

const management = (p: TwinportProcess) => p.details.management as string;
const tempDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `twinport-operability-${name}-`));
  dirs.push(dir);
  return dir;
};

/** The value of one sample line of a Prometheus exposition, or undefined. */
function sample(metrics: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of metrics.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const labelText = line.slice(name.length + 1, line.lastIndexOf("}"));
    if (Object.entries(labels).every(([key, value]) => labelText.includes(`${key}="${value}"`)))
      return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return undefined;
}

before(async () => {
  [redis, nats] = await Promise.all([startRedis(), startNats()]);
  const env = {
    TWINPORT_PERSISTENCE_URL: redis.url,
    TWINPORT_MESSAGEBUS_URL: nats.url,
    TWINPORT_CORE_MANAGEMENTPORT: "0",
  };
  store = await startTwinport({ role: "model-store", cwd: tempDir("store"), args: ["-m", EXAMPLE_MODEL], env });
  const httpPort = await freePort();
  const gatewayDir = tempDir("http");
  writeFileSync(
    join(gatewayDir, "config.json"),
    JSON.stringify({
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port: httpPort, host: "127.0.0.1", sslEnabled: false }],
    }),
  );
  gateway = await startTwinport({ role: "http-gateway", cwd: gatewayDir, args: ["-c", "config.json"], env });
  client = createHttpClient(`http://127.0.0.1:${httpPort}/api/v3.0`);
  const opcuaPort = await freePort();
  opcua = await startTwinport({
    role: "opcua-gateway",
    cwd: tempDir("opcua"),
    args: [
      "--endpoint",
      "opcua",
      `endpoints[0].tcpPort=${opcuaPort}`,
      "endpoints[0].host=127.0.0.1",
      "endpoints[0].hostname=127.0.0.1",
      "endpoints[0].secondsTillShutdown=0",
    ],
    env,
  });
  opcuaUrl = `opc.tcp://127.0.0.1:${opcuaPort}`;
});

after(async () => {
  client?.close();
  await Promise.all([store, gateway, opcua].map((p) => p?.stop()));
  await Promise.all([redis?.stop(), nats?.stop()]);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test("every process answers /health and /ready on its management port, with the checks of its role", async () => {
  const expected: [TwinportProcess, Record<string, boolean>][] = [
    [store, { redis: true, storeData: true, nats: true }],
    [gateway, { nats: true }],
    [opcua, { nats: true }],
  ];
  for (const [proc, checks] of expected) {
    assert.match(
      management(proc),
      /^http:\/\/127\.0\.0\.1:\d+$/,
      `${proc.role} names its management port in the ready line`,
    );
    const health = await fetch(`${management(proc)}/health`);
    assert.equal(health.status, 200);
    const ready = await fetch(`${management(proc)}/ready`);
    assert.equal(ready.status, 200, proc.role);
    assert.deepEqual(await ready.json(), { status: "ready", checks });
  }
});

test("the correlation id travels from X-Correlation-Id through NATS into the model-store's log and the event", async () => {
  const connection = await connectNats({ url: nats.url, name: "operability-test" });
  const bus = createNatsEventBus({ connection });
  const events: ChangeEvent[] = [];
  const subscription = await bus.subscribe({ onEvent: (event) => events.push(event) });
  try {
    const correlationId = `op-test-${Date.now()}`;
    const response = await client.request("PATCH", VALUE_PATH, {
      body: '"4321"',
      headers: { "X-Correlation-Id": correlationId },
    });
    assert.equal(response.status, 204, response.text);
    assert.equal(response.headers["x-correlation-id"], correlationId);

    const until = Date.now() + 5000;
    while (!events.some((event) => event.correlationId === correlationId) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20));
    const event = events.find((e) => e.correlationId === correlationId);
    assert.ok(
      event,
      `an event with correlationId ${correlationId}; got ${JSON.stringify(events.map((e) => e.correlationId))}`,
    );
    assert.equal(event.origin, "http");

    // A write's entry is its own line, or one of the `writes` of its turn's line (write-log.ts),
    // written at the end of the turn that answered it: the event may arrive here first.
    const readStoreLog = () =>
      readFileSync(store.logFile, "utf8")
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line));
    const findLine = (entries: Record<string, unknown>[]) =>
      entries
        .flatMap((entry) =>
          Array.isArray(entry.writes) ? entry.writes.map((w: object) => ({ ...entry, ...w })) : [entry],
        )
        .find((entry) => entry.correlationId === correlationId);
    let storeLog = readStoreLog();
    const logUntil = Date.now() + 5000;
    while (!findLine(storeLog) && Date.now() < logUntil) {
      await new Promise((r) => setTimeout(r, 20));
      storeLog = readStoreLog();
    }
    const line = findLine(storeLog);
    assert.ok(
      line,
      `a model-store log line with the correlation id:\n${storeLog
        .slice(-5)
        .map((e) => JSON.stringify(e))
        .join("\n")}`,
    );
    assert.equal(line.command, "PatchSubmodelElementValueByPath");
    assert.equal(line.role, "model-store");
    assert.equal(line.level, 30);
    assert.equal(line.revision, event.revision);
  } finally {
    await subscription.unsubscribe();
    await bus.close();
    await connection.close();
  }
});

test("/metrics: requests per route template (no raw ids), commands and failures per type, backend state, event lag, OPC UA sessions and subscriptions", async () => {
  assert.equal((await client.get(`/submodels/${encodeBase64Url("urn:nope")}`)).status, 404);
  assert.equal((await client.request("PATCH", VALUE_PATH, { body: '"5000"' })).status, 204);

  const gatewayMetrics = await (await fetch(`${management(gateway)}/metrics`)).text();
  const valueRoute = gatewayMetrics
    .split("\n")
    .find((line) => line.startsWith("twinport_http_requests_total{") && line.includes('method="PATCH"'));
  assert.ok(valueRoute, gatewayMetrics);
  assert.match(valueRoute, /route="\/api\/v3\.0\/submodels\/:submodelIdentifier\/submodel-elements\/[^"]*\$value"/);
  assert.ok(!gatewayMetrics.includes(encodeBase64Url(SUBMODEL)), "no raw id in any label");
  assert.ok((sample(gatewayMetrics, "twinport_http_requests_total", { method: "GET", status: "404" }) ?? 0) >= 1);
  assert.ok(
    (sample(gatewayMetrics, "twinport_http_request_duration_seconds_count", { method: "PATCH", status: "204" }) ?? 0) >=
      2,
  );
  assert.equal(sample(gatewayMetrics, "twinport_backend_up", { backend: "nats" }), 1);

  const storeMetrics = await (await fetch(`${management(store)}/metrics`)).text();
  assert.ok((sample(storeMetrics, "twinport_commands_total", { type: "PatchSubmodelElementValueByPath" }) ?? 0) >= 2);
  // The commit path: each write, one after the other, is one more script call carrying one commit.
  const callsBefore = sample(storeMetrics, "twinport_store_commit_call_seconds_count", { outcome: "answered" }) ?? 0;
  const commitsBefore = sample(storeMetrics, "twinport_store_commits_per_call_sum", {}) ?? 0;
  assert.ok(callsBefore >= 2 && commitsBefore >= callsBefore, storeMetrics);
  assert.equal((await client.request("PATCH", VALUE_PATH, { body: '"5001"' })).status, 204);
  assert.equal((await client.request("PATCH", VALUE_PATH, { body: '"5000"' })).status, 204);
  const storeMetricsAfter = await (await fetch(`${management(store)}/metrics`)).text();
  assert.equal(
    sample(storeMetricsAfter, "twinport_store_commit_call_seconds_count", { outcome: "answered" }),
    callsBefore + 2,
  );
  assert.equal(sample(storeMetricsAfter, "twinport_store_commits_per_call_sum", {}), commitsBefore + 2);
  assert.equal(sample(storeMetricsAfter, "twinport_store_commit_call_seconds_count", { outcome: "failed" }), undefined);
  assert.ok(!gatewayMetrics.includes("twinport_store_"), "a gateway has no store series");
  assert.equal(
    sample(storeMetrics, "twinport_command_failures_total", { type: "GetSubmodelById", code: "not-found" }),
    1,
  );
  assert.equal(sample(storeMetrics, "twinport_backend_up", { backend: "redis" }), 1);
  assert.equal(sample(storeMetrics, "twinport_backend_up", { backend: "nats" }), 1);

  const opcuaClient = await connectOpcua(opcuaUrl, tempDir("opcua-client"));
  try {
    const monitor = await opcuaClient.monitor(`${SUBMODEL}|MaxRotationSpeed/Value`);
    await monitor.waitFor(() => true, 5000, "the first notification");
    const opcuaMetrics = await (await fetch(`${management(opcua)}/metrics`)).text();
    assert.equal(sample(opcuaMetrics, "twinport_opcua_sessions", { role: "opcua-gateway" }), 1, opcuaMetrics);
    assert.equal(sample(opcuaMetrics, "twinport_opcua_subscriptions", { role: "opcua-gateway" }), 1);
    assert.ok(
      (sample(opcuaMetrics, "twinport_event_lag_seconds_count", { role: "opcua-gateway" }) ?? 0) >= 2,
      "both writes' events reached the mirror",
    );
    assert.equal(
      sample(opcuaMetrics, "twinport_event_lag_seconds_bucket", { le: "+Inf" }),
      sample(opcuaMetrics, "twinport_event_lag_seconds_count", {}),
    );
  } finally {
    await opcuaClient.close();
  }
});

test("SIGTERM: the gateway turns unready, refuses new connections, finishes the in-flight request, then exits 0", async () => {
  // Freeze the store so a request stays in flight at the gateway (well inside the 5 s request timeout).
  process.kill(store.child.pid!, "SIGSTOP");
  let resumed = false;
  try {
    const inFlight = client.get(`/submodels/${encodeBase64Url(SUBMODEL)}/submodel-elements/MaxRotationSpeed/$value`);
    await new Promise((r) => setTimeout(r, 200));
    const exited = new Promise<number | null>((resolve) => gateway.child.once("exit", (code) => resolve(code)));
    gateway.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));

    const ready = await fetch(`${management(gateway)}/ready`);
    assert.equal(ready.status, 503);
    assert.deepEqual(await ready.json(), { status: "stopping" });
    const fresh = createHttpClient(client.baseUrl);
    await assert.rejects(
      fresh.get("/description"),
      /ECONNREFUSED|ECONNRESET|socket hang up/,
      "no new connections while draining",
    );
    fresh.close();

    process.kill(store.child.pid!, "SIGCONT");
    resumed = true;
    const response = await inFlight;
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.json(), { MaxRotationSpeed: 5000 });
    assert.equal(await exited, 0);
    const lines = readFileSync(gateway.logFile, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line));
    assert.ok(lines.some((entry) => entry.msg === "stopped" && entry.role === "http-gateway"));
  } finally {
    if (!resumed) process.kill(store.child.pid!, "SIGCONT");
  }
});
