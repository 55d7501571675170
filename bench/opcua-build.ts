/**
 * Issue 5 benchmark: building the OPC UA address space for 10,000 and 100,000 elements (one
 * submodel of xs:int Properties: 3 nodes each: the element object, ValueType, Value).
 * - in-process: the engine on a memory repository; server initialize (nodesets) and the address-space
 *   build (store snapshot → nodes, then the submodel's nodes made as on first use, ADR 0036) timed
 *   apart, process RSS after the build, then a full resync (every node patched in place). Each size
 *   runs in a fresh child process so RSS figures do not mix.
 * - distributed: a model-store process holding the model in Redis; the time from spawning an
 *   opcua-gateway process to its ready line (snapshot over NATS + build), and that process's RSS.
 * Target: 100,000 elements build in ≤ 15 s.
 *
 * Run: npm run bench -- opcua-build     (options: BENCH_SIZES=10000,100000 BENCH_DISTRIBUTED=0)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const sizes = (process.env.BENCH_SIZES ?? "10000,100000").split(",").map(Number);
const SUBMODEL = "urn:bench:opcua:build";

function environment(size: number) {
  return {
    submodels: [
      {
        modelType: "Submodel",
        id: SUBMODEL,
        idShort: "Build",
        submodelElements: Array.from({ length: size }, (_, i) => ({
          modelType: "Property",
          idShort: `P${i}`,
          valueType: "xs:int",
          value: String(i),
        })),
      },
    ],
  };
}

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function inProcess(size: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "twinport-bench-opcua-"));
  process.env.XDG_CONFIG_HOME = join(dir, "xdg");
  const { OPCUAServer } = await import("node-opcua");
  const {
    createDirectStoreClient,
    createEngine,
    createInProcessEventBus,
    createLogger,
    createMemoryRepository,
    loadConfig,
  } = await import("@twinport/shared");
  const { aasServerOptions, attachAddressSpace, routeNodeOpcuaLogsTo } = await import("@twinport/opcua-gateway");
  // node-opcua never logs at fatal: its lines are dropped before they are formatted.
  routeNodeOpcuaLogsTo(createLogger({ role: "bench", level: "fatal", destination: { write: () => undefined } }));
  const bus = createInProcessEventBus();
  const engine = createEngine({ repository: createMemoryRepository(), bus });
  const store = createDirectStoreClient(engine);
  const loaded = await store.execute({
    type: "LoadEnvironment",
    params: { body: JSON.stringify(environment(size)), validate: false },
  });
  if (!loaded.ok) throw new Error(loaded.error.message);
  const { config } = loadConfig({ role: "opcua-gateway", endpointKinds: ["opcua"] });
  const endpoint = config.endpoints[0] as import("@twinport/shared").OpcUaEndpointConfig;

  const server = new OPCUAServer({ port: 0, hostname: "127.0.0.1", ...aasServerOptions() });
  let started = performance.now();
  await server.initialize();
  const initMs = performance.now() - started;
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  started = performance.now();
  const aas = await attachAddressSpace(server, { store, bus, endpoint, log: () => undefined });
  // The snapshot makes the submodel's own node only (ADR 0036): its elements are built on first use,
  // as a client's first request would, and that is what is timed as the build.
  await aas.lazy.ensure(SUBMODEL);
  const buildMs = performance.now() - started;
  const rssAfter = process.memoryUsage().rss;
  started = performance.now();
  aas.sync.resync("benchmark");
  while (aas.sync.syncCount < 2) await new Promise((resolve) => setTimeout(resolve, 10));
  const resyncMs = performance.now() - started;
  await aas.stop();
  await server.shutdown(0);
  rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify({ size, initMs, buildMs, resyncMs, rssBefore, rssAfter }));
}

async function distributed(size: number): Promise<string> {
  const { freePort, startNats, startRedis } = await import("../tests/test-support/servers.ts");
  const { startTwinport } = await import("../tests/test-support/system.ts");
  const dir = mkdtempSync(join(tmpdir(), "twinport-bench-opcua-"));
  writeFileSync(join(dir, "model.json"), JSON.stringify(environment(size)));
  const [redis, nats] = await Promise.all([startRedis(), startNats()]);
  const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
  let store: Awaited<ReturnType<typeof startTwinport>> | undefined;
  try {
    store = await startTwinport({
      role: "model-store",
      cwd: dir,
      args: ["-m", "model.json", "--no-validation"],
      env,
      timeoutMs: 600_000,
    });
    writeFileSync(
      join(dir, "opcua.json"),
      JSON.stringify({
        endpoints: [
          {
            "@class": "endpoint.opcua.OpcUaEndpoint",
            tcpPort: await freePort(),
            host: "127.0.0.1",
            hostname: "127.0.0.1",
            secondsTillShutdown: 0,
          },
        ],
      }),
    );
    const started = performance.now();
    const gateway = await startTwinport({
      role: "opcua-gateway",
      cwd: dir,
      args: ["-c", "opcua.json"],
      env,
      timeoutMs: 600_000,
    });
    const readyMs = performance.now() - started;
    const rss =
      Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${gateway.child.pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
    await gateway.stop();
    // The gateway logs where its first snapshot's time went.
    const built = /store read (\d+) ms, nodes (\d+) ms/.exec(readFileSync(gateway.logFile, "utf8"));
    const split = built
      ? `: snapshot over NATS ${seconds(Number(built[1]))}, nodes ${seconds(Number(built[2]))}, the rest process start-up, nodesets and certificate`
      : "";
    return `distributed ${String(size).padStart(7)} elements: opcua-gateway process ready in ${seconds(readyMs)}${split}; RSS ${mb(rss)}`;
  } finally {
    await store?.stop();
    await Promise.all([redis.stop(), nats.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

function child(size: number): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const run = spawn(
      process.execPath,
      ["--expose-gc", "--import", "tsx", new URL(import.meta.url).pathname, "--child", String(size)],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let output = "";
    run.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    run.once("exit", (code) => {
      const line = output.split("\n").find((text) => text.startsWith("{"));
      if (code !== 0 || line === undefined) reject(new Error(`child for ${size} exited with ${code}: ${output}`));
      else resolve(JSON.parse(line));
    });
  });
}

if (process.argv[2] === "--child") {
  await inProcess(Number(process.argv[3]));
  process.exit(0);
}

for (const size of sizes) {
  const r = await child(size);
  const verdict = size >= 100_000 ? (r.buildMs <= 15_000 ? "  (≤ 15 s: ok)" : "  (> 15 s: misses the target)") : "";
  console.log(
    `in-process  ${String(size).padStart(7)} elements: build ${seconds(r.buildMs)}${verdict}, server initialize ${seconds(r.initMs)}, ` +
      `RSS ${mb(r.rssBefore)} → ${mb(r.rssAfter)} (+${mb(r.rssAfter - r.rssBefore)}), full resync in place ${seconds(r.resyncMs)}`,
  );
}
if (process.env.BENCH_DISTRIBUTED !== "0") {
  for (const size of sizes) {
    try {
      console.log(await distributed(size));
    } catch (error) {
      console.log(
        `distributed ${String(size).padStart(7)} elements: not measured: ${(error as Error).message.split("\n")[0]}`,
      );
    }
  }
}
