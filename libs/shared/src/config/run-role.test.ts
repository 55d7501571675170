import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { test } from "node:test";
import { ConfigError, type ProcessIo, type RunningRole, runRole } from "./index.ts";

/**
 * A stand-in for `process`: records output and exit codes instead of ending the test run. The
 * management port is off unless a test turns it on (the tests below it are about output and codes).
 */
function fakeProcess(givenEnv: NodeJS.ProcessEnv = {}) {
  const env = { TWINPORT_CORE_MANAGEMENTPORT: "-1", ...givenEnv };
  const signals = new EventEmitter();
  let stdout = "";
  let stderr = "";
  let resolveExit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (resolveExit = resolve));
  const io: ProcessIo = {
    env,
    cwd: () => "/nonexistent-cwd-for-test",
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    on: (signal, listener) => signals.on(signal, listener),
    exit: ((code = 0) => resolveExit(code)) as ProcessIo["exit"],
  };
  return {
    io,
    exited,
    signal: (name: "SIGTERM" | "SIGINT") => signals.emit(name, name),
    out: () => stdout,
    err: () => stderr,
  };
}

function running(onStop: () => Promise<void> = async () => {}): RunningRole {
  return { details: { http: ["https://127.0.0.1:1/api/v3.0"] }, stop: onStop };
}

test("prints one ready line, stops on SIGTERM and exits 0", async () => {
  const proc = fakeProcess();
  let stopped = 0;
  await runRole({
    role: "http-gateway",
    argv: ["http-gateway", "--endpoint", "http"],
    io: proc.io,
    start: async () => running(async () => void stopped++),
  });
  assert.equal(proc.out(), 'twinport http-gateway ready {"http":["https://127.0.0.1:1/api/v3.0"]}\n');
  proc.signal("SIGTERM");
  assert.equal(await proc.exited, 0);
  assert.equal(stopped, 1);
});

test("the start function gets the loaded configuration; warnings go to stderr", async () => {
  const proc = fakeProcess({ TWINPORT_ENDPOINTS_0_PORT: "9443", TWINPORT_UNKNOWN: "1" });
  let seen: unknown;
  await runRole({
    role: "opcua-gateway",
    argv: ["endpoints[0].host=127.0.0.1"],
    io: proc.io,
    start: async (context) => {
      seen = {
        port: (context.config.endpoints[0] as { port: number }).port,
        host: (context.config.endpoints[0] as { host: string }).host,
        models: context.models,
        bus: context.config.messageBus["@class"],
      };
      return running();
    },
  });
  assert.deepEqual(seen, { port: 9443, host: "127.0.0.1", models: [], bus: "messagebus.nats.MessageBusNats" });
  proc.signal("SIGINT");
  assert.equal(await proc.exited, 0);
  // A JSON log line (stderr is no terminal here), as every other line of the log.
  const warning = proc
    .err()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line))
    .find((line) => line.component === "config");
  assert.match(warning?.msg ?? "", /^Ignoring environment variable TWINPORT_UNKNOWN: Unknown key 'unknown'/);
  assert.equal(warning.level, 40);
});

test("a second signal while stopping exits 1 at once", async () => {
  const proc = fakeProcess();
  await runRole({
    role: "embedded",
    argv: ["--empty-model"],
    io: proc.io,
    signalEchoMs: 50,
    start: async () => running(() => new Promise(() => {})),
  });
  proc.signal("SIGTERM");
  await new Promise((resolve) => setTimeout(resolve, 100));
  proc.signal("SIGTERM");
  assert.equal(await proc.exited, 1);
  assert.match(proc.err(), /twinport embedded: SIGTERM again, exiting without waiting for the shutdown/);
});

test("the same signal twice at once (npm start + Ctrl-C: terminal and npm both send SIGINT) is one graceful stop", async () => {
  const proc = fakeProcess();
  let stops = 0;
  let finishStop!: () => void;
  await runRole({
    role: "embedded",
    argv: ["--empty-model"],
    io: proc.io,
    start: async () =>
      running(() => {
        stops++;
        return new Promise<void>((resolve) => (finishStop = resolve));
      }),
  });
  proc.signal("SIGINT");
  proc.signal("SIGINT");
  await new Promise((resolve) => setTimeout(resolve, 20));
  finishStop();
  assert.equal(await proc.exited, 0);
  assert.equal(stops, 1);
  assert.doesNotMatch(proc.err(), /again/);
});

test("another signal right after the first is no echo: it exits 1 at once", async () => {
  const proc = fakeProcess();
  await runRole({
    role: "embedded",
    argv: ["--empty-model"],
    io: proc.io,
    start: async () => running(() => new Promise(() => {})),
  });
  proc.signal("SIGINT");
  proc.signal("SIGTERM");
  assert.equal(await proc.exited, 1);
  assert.match(proc.err(), /twinport embedded: SIGTERM after SIGINT, exiting without waiting for the shutdown/);
});

test("core.shutdownDelay: /ready answers 503 at once, the role serves on for the delay, then stops", async () => {
  const proc = fakeProcess({ TWINPORT_CORE_MANAGEMENTPORT: "0", TWINPORT_CORE_SHUTDOWNDELAY: "PT0.5S" });
  let stoppedAt: number | undefined;
  await runRole({
    role: "http-gateway",
    argv: ["--endpoint", "http"],
    io: proc.io,
    start: async () => ({
      details: {},
      stop: async () => void (stoppedAt = Date.now()),
    }),
  });
  const { management } = JSON.parse(/ready (\{.*\})/.exec(proc.out())![1]!) as { management: string };
  const signalledAt = Date.now();
  proc.signal("SIGTERM");
  const ready = await fetch(`${management}/ready`);
  assert.equal(ready.status, 503);
  assert.deepEqual(await ready.json(), { status: "stopping" });
  assert.equal(stoppedAt, undefined, "still serving while balancers notice");
  assert.equal(await proc.exited, 0);
  assert.ok(stoppedAt! - signalledAt >= 450, `stopped ${stoppedAt! - signalledAt} ms after the signal`);
  assert.match(proc.err(), /serving on for 0\.5 s \(core\.shutdownDelay\)/);
});

test("a failing stop exits 1 with its message", async () => {
  const proc = fakeProcess();
  await runRole({
    role: "embedded",
    argv: ["--empty-model"],
    io: proc.io,
    start: async () =>
      running(async () => {
        throw new Error("redis went away");
      }),
  });
  proc.signal("SIGTERM");
  assert.equal(await proc.exited, 1);
  // The JSON log line "stopping…" comes first; the failure is the last, plain line.
  assert.match(proc.err(), /\ntwinport embedded: shutdown failed: redis went away\n$/);
});

test("start failures exit 1, configuration and usage errors exit 2; one line each, no stack", async () => {
  const cases: {
    argv: string[];
    role?: "embedded" | "http-gateway";
    start?: () => Promise<RunningRole>;
    code: number;
    line: string;
  }[] = [
    {
      argv: ["--empty-model"],
      start: async () => {
        throw Object.assign(new Error("HTTP endpoint cannot listen on 0.0.0.0:443: the port is already in use."), {
          code: "EADDRINUSE",
        });
      },
      code: 1,
      line: "twinport embedded: HTTP endpoint cannot listen on 0.0.0.0:443: the port is already in use.",
    },
    {
      argv: ["--empty-model"],
      start: async () => {
        throw new ConfigError("messageBus must be NATS");
      },
      code: 2,
      line: "twinport: messageBus must be NATS",
    },
    { argv: ["--nope"], code: 2, line: "twinport: Unknown option '--nope'. Run 'twinport --help' for the options." },
    {
      argv: ["core.nope=1"],
      code: 2,
      line: "twinport: Unknown key 'core.nope'. Allowed: requestHandlerThreadPoolSize, assetConnectionRetryInterval, assetConnectionReadTimeout, assetConnectionReadMaxThreadPoolSize, assetConnectionWriteMaxThreadPoolSize, validationOnLoad, validationOnCreate, validationOnUpdate, minInflateRatio, aasxMaxEntries, aasxMaxTotalSize, aasxMaxEntrySize, aasxMaxModelSize, importMaxIdentifiableSize, maxNestingDepth, operationHandleTtl, operationTimeout, maxRunningOperations, idempotencyWindow, shutdownDelay, stateDir, managementPort, managementHost, aasRegistries, submodelRegistries, registrySynchronization, logLevel, logFormat, progressIntervalMs",
    },
    {
      argv: ["-m", "/nonexistent/model.json"],
      code: 1,
      line: "twinport embedded: Cannot read model file '/nonexistent/model.json': no such file",
    },
    { argv: ["model-store"], code: 2, line: "twinport: This program runs 'embedded', not 'model-store'." },
    {
      role: "http-gateway",
      argv: ["-m", "x.json"],
      code: 2,
      line: "twinport: -m/--model, --empty-model and --no-validation apply to embedded mode and the model-store only.",
    },
  ];
  for (const { argv, role = "embedded", start = async () => running(), code, line } of cases) {
    const proc = fakeProcess();
    await runRole({ role, argv, io: proc.io, start });
    assert.equal(await proc.exited, code, argv.join(" "));
    assert.equal(proc.err(), `${line}\n`);
    assert.equal(proc.out(), "");
  }
});

test("--help prints the help and starts nothing", async () => {
  const proc = fakeProcess();
  await runRole({ role: "embedded", argv: ["--help"], io: proc.io, start: async () => assert.fail("must not start") });
  assert.equal(await proc.exited, 0);
  assert.match(proc.out(), /^Usage: twinport \[command\]/);
});

test("the management port: /health at once, /ready from the role's checks, /metrics, 503 while stopping; port 0 is named in the ready line", async () => {
  const proc = fakeProcess({ TWINPORT_CORE_MANAGEMENTPORT: "0" });
  let natsUp = true;
  let finishStop!: () => void;
  await runRole({
    role: "http-gateway",
    argv: ["--endpoint", "http"],
    io: proc.io,
    start: async ({ metrics }) => {
      metrics.countCommand("GetSubmodelById");
      metrics.countCommand("GetSubmodelById", "not-found");
      return {
        details: { http: [] },
        readiness: [{ name: "nats", ready: () => natsUp }],
        stop: () => new Promise<void>((resolve) => (finishStop = resolve)),
      };
    },
  });
  const line = /^twinport http-gateway ready (\{.*\})\n$/.exec(proc.out());
  assert.ok(line, proc.out());
  const { management } = JSON.parse(line[1]!) as { management: string };
  assert.match(management, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.notEqual(management, "http://127.0.0.1:0");

  assert.equal((await fetch(`${management}/health`)).status, 200);
  const ready = await fetch(`${management}/ready`);
  assert.equal(ready.status, 200);
  assert.deepEqual(await ready.json(), { status: "ready", checks: { nats: true } });
  natsUp = false;
  const notReady = await fetch(`${management}/ready`);
  assert.equal(notReady.status, 503);
  assert.deepEqual(await notReady.json(), { status: "not ready", checks: { nats: false } });
  natsUp = true;

  const metrics = await (await fetch(`${management}/metrics`)).text();
  assert.match(metrics, /twinport_commands_total\{type="GetSubmodelById",role="http-gateway"\} 2/);
  assert.match(
    metrics,
    /twinport_command_failures_total\{type="GetSubmodelById",code="not-found",role="http-gateway"\} 1/,
  );
  assert.match(metrics, /process_cpu_seconds_total/);
  assert.equal((await fetch(`${management}/nope`)).status, 404);

  proc.signal("SIGTERM");
  // Draining: alive, but no longer ready, so balancers stop sending new requests.
  assert.equal((await fetch(`${management}/health`)).status, 200);
  const draining = await fetch(`${management}/ready`);
  assert.equal(draining.status, 503);
  assert.deepEqual(await draining.json(), { status: "stopping" });
  finishStop();
  assert.equal(await proc.exited, 0);
  await assert.rejects(fetch(`${management}/health`), "the management port closes with the process");
  const logLines = proc
    .err()
    .trim()
    .split("\n")
    .map((text) => JSON.parse(text) as { role: string; msg: string });
  assert.ok(
    logLines.some((entry) => entry.role === "http-gateway" && /stopping/.test(entry.msg)),
    proc.err(),
  );
});

/** An http-gateway whose start must fail before its role starts (exit 1): the process, to read its stderr. */
async function failedGatewayStart(env: Record<string, string>) {
  const proc = fakeProcess(env);
  await runRole({
    role: "http-gateway",
    argv: ["--endpoint", "http"],
    io: proc.io,
    start: async () => assert.fail("must not start"),
  });
  assert.equal(await proc.exited, 1);
  return proc;
}

test("an explicitly configured management port that is taken fails the start with a message naming the setting", async () => {
  const holder = await startManagementServerOnFreePort();
  try {
    const proc = await failedGatewayStart({ TWINPORT_CORE_MANAGEMENTPORT: String(holder.port) });
    assert.match(
      proc.err(),
      /Management port cannot listen on 0\.0\.0\.0:\d+: the port is already in use\. Change core\.managementPort/,
    );
  } finally {
    await holder.close();
  }
});

test("a management host that does not resolve names core.managementHost, or the endpoints' host it followed", async () => {
  for (const [env, hint] of [
    [
      { TWINPORT_CORE_MANAGEMENTHOST: "nohost.invalid" },
      /Change core\.managementHost \(TWINPORT_CORE_MANAGEMENTHOST\) to an address of this machine/,
    ],
    [
      { TWINPORT_ENDPOINTS_0_HOST: "nohost.invalid" },
      /Change the endpoints' host \(core\.managementHost is unset, so the management port binds where all endpoints do\), or core\.managementHost, to an address of this machine/,
    ],
  ] as const) {
    const proc = await failedGatewayStart({ ...env, TWINPORT_CORE_MANAGEMENTPORT: "0" });
    assert.match(
      proc.err(),
      /Management port cannot listen on nohost\.invalid:0: the host name 'nohost\.invalid' does not resolve/,
    );
    assert.match(proc.err(), hint);
    assert.doesNotMatch(proc.err(), /managementPort/);
  }
});

async function startManagementServerOnFreePort() {
  const { createServer } = await import("node:net");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

test("core.managementHost: set wins; else the address all served endpoints share; else 0.0.0.0 (issue 13)", async () => {
  const { managementHost } = await import("./run-role.ts");
  const { validateConfig } = await import("./validate-config.ts");
  const config = (core: Record<string, unknown>, hosts: [string, string]) =>
    validateConfig({
      core,
      endpoints: [
        { "@class": "endpoint.http.HttpEndpoint", host: hosts[0] },
        { "@class": "endpoint.opcua.OpcUaEndpoint", host: hosts[1] },
      ],
      persistence: { "@class": "persistence.memory.PersistenceInMemory" },
      messageBus: { "@class": "messagebus.internal.MessageBusInternal" },
      fileStorage: { "@class": "filestorage.memory.FileStorageInMemory" },
    });
  const local = config({}, ["127.0.0.1", "127.0.0.1"]);
  assert.equal(managementHost(local, "embedded"), "127.0.0.1");
  assert.equal(managementHost(local, "http-gateway"), "127.0.0.1");
  assert.equal(managementHost(local, "model-store"), "0.0.0.0", "no endpoint of its own: reachable for probes");
  const mixed = config({}, ["127.0.0.1", "10.0.0.5"]);
  assert.equal(managementHost(mixed, "embedded"), "0.0.0.0", "endpoints on different addresses share none");
  assert.equal(managementHost(mixed, "opcua-gateway"), "10.0.0.5");
  assert.equal(managementHost(config({ managementHost: "::1" }, ["127.0.0.1", "127.0.0.1"]), "embedded"), "::1");
});

test("two listeners of one process on one port are a configuration error naming both settings", async () => {
  const { portClash } = await import("./role-listeners.ts");
  const { validateConfig } = await import("./validate-config.ts");
  const config = (core: Record<string, unknown>, http: Record<string, unknown>, opcua: Record<string, unknown>) =>
    validateConfig({
      core,
      endpoints: [
        { "@class": "endpoint.http.HttpEndpoint", ...http },
        { "@class": "endpoint.opcua.OpcUaEndpoint", ...opcua },
      ],
      persistence: { "@class": "persistence.memory.PersistenceInMemory" },
      messageBus: { "@class": "messagebus.internal.MessageBusInternal" },
      fileStorage: { "@class": "filestorage.memory.FileStorageInMemory" },
    });
  const sameAsHttp = config({ managementPort: 8080 }, { port: 8080 }, { tcpPort: 4840 });
  assert.match(
    portClash(sameAsHttp, "embedded") ?? "",
    /^endpoints\[0\]\.port and core\.managementPort are both port 8080 .*give one of them another port$/,
  );
  // The model-store serves no endpoint: its management port is alone.
  assert.equal(portClash(sameAsHttp, "model-store"), undefined);
  const twoEndpoints = config({}, { port: 4840, host: "127.0.0.1" }, { tcpPort: 4840 });
  assert.match(portClash(twoEndpoints, "embedded") ?? "", /endpoints\[0\]\.port and endpoints\[1\]\.tcpPort/);
  // Each gateway serves one kind: no clash within either process.
  assert.equal(portClash(twoEndpoints, "http-gateway"), undefined);
  assert.equal(portClash(twoEndpoints, "opcua-gateway"), undefined);
  // Different addresses, the system's pick, or an absent management port (it falls back) do not clash.
  assert.equal(
    portClash(config({}, { port: 4840, host: "127.0.0.1" }, { tcpPort: 4840, host: "10.0.0.5" }), "embedded"),
    undefined,
  );
  assert.equal(portClash(config({ managementPort: 0 }, { port: 0 }, { tcpPort: 0 }), "embedded"), undefined);
  assert.equal(portClash(config({}, { port: 9464 }, { tcpPort: 4840 }), "embedded"), undefined);
});

test("the management server says whether it listens on every interface (the banner then says so beside its loopback URL)", async () => {
  const { startManagementServer } = await import("../operability/management-server.ts");
  const { createProcessMetrics } = await import("../operability/process-metrics.ts");
  for (const [host, every] of [
    ["0.0.0.0", true],
    ["127.0.0.1", false],
  ] as const) {
    const server = await startManagementServer({ port: 0, host, metrics: createProcessMetrics("test") });
    try {
      assert.equal(server.everyInterface, every, host);
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await server.close();
    }
  }
});

test("FA³ST's own variables: faaast_config, faaast_model and faaast_no_validation are read; faaast_endpoint is named as ignored", async () => {
  const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
  const { join } = await import("node:path");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(join(tmpdir(), "twinport-faaast-env-"));
  try {
    const config = join(dir, "config.json");
    writeFileSync(config, JSON.stringify({ core: { maxNestingDepth: 17 } }));
    const model = join(dir, "model.json");
    writeFileSync(model, "{}");
    const proc = fakeProcess({
      FAAAST_CONFIG: config,
      faaast_model: model,
      faaast_no_validation: "true",
      faaast_endpoint: "OPCUA",
    });
    let seen: unknown;
    await runRole({
      role: "embedded",
      argv: ["--endpoint", "http"],
      io: proc.io,
      start: async (context) => {
        seen = {
          maxNestingDepth: context.config.core.maxNestingDepth,
          models: context.models.map((m) => m.path),
          validateOnLoad: context.validateOnLoad,
        };
        return running();
      },
    });
    proc.signal("SIGINT");
    assert.equal(await proc.exited, 0, proc.err());
    assert.deepEqual(seen, { maxNestingDepth: 17, models: [model], validateOnLoad: false });
    assert.match(proc.err(), /faaast_endpoint=OPCUA is ignored: FA³ST starts such endpoints in addition/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
