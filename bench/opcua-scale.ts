/**
 * Issue 19 item 1 benchmark: the OPC UA address space of a big model (ADR 0036, lazy nodes).
 * Shapes: (b) submodels of 100 xs:int Properties; (c) shells, each with one submodel of 10 Properties.
 * Sizes are element counts: 100,000 and 1,000,000 by default.
 *
 * - in-process: the engine on a memory repository holds the model in the same process; the time
 *   to attach the address space (store snapshot → nodes, what "ready" waits for) and the RSS the
 *   address space adds (process RSS before and after, after a GC).
 * - distributed: model-store (Redis, as shipped) seeded with the model, then an opcua-gateway
 *   process: spawn → ready line, and that process's RSS (what issue 19 asks: ≤ 60 s, ≤ 1.5 GB).
 *
 * Both then time, with a real OPC UA client, the first read, browse and subscribe (to the first
 * notification) on submodels never touched before (median and max of 10 each), the RSS after
 * reading one value of 1,000 submodels (their nodes made), and after walking every submodel (one
 * read each): what maxMaterializedElements bounds (ADR 0036 "Bounded"; the default bound, unless
 * BENCH_MAX_ELEMENTS sets it). BENCH_WALK=0 skips the walk; BENCH_GATEWAY_NODE_OPTIONS is the
 * distributed opcua-gateway's NODE_OPTIONS (e.g. a V8 heap limit).
 *
 * Run: npm run bench -- opcua-scale   (BENCH_SIZES=100000,1000000 BENCH_SHAPES=b,c BENCH_MODES=in-process,distributed)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatedSubmodel } from "./test-support/generated-model.ts";

type Shape = "b" | "c";
const sizes = (process.env.BENCH_SIZES ?? "100000,1000000").split(",").map(Number);
const shapes = (process.env.BENCH_SHAPES ?? "b,c").split(",") as Shape[];
const modes = (process.env.BENCH_MODES ?? "in-process,distributed").split(",");

const perSubmodel = (shape: Shape) => (shape === "b" ? 100 : 10);
const submodelId = (shape: Shape, n: number) =>
  shape === "b" ? `urn:bench:scale:Sub${n}` : `urn:many-shells:submodel:${n}`;
const submodelCount = (shape: Shape, size: number) => size / perSubmodel(shape);

/** The environment as JSON text, written in parts (1M elements are ~100 MB of text). */
function environmentText(shape: Shape, size: number): string {
  const count = submodelCount(shape, size);
  const parts: string[] = ['{"assetAdministrationShells":['];
  if (shape === "c")
    for (let n = 0; n < count; n++)
      parts.push(
        (n > 0 ? "," : "") +
          JSON.stringify({
            modelType: "AssetAdministrationShell",
            id: `urn:many-shells:shell:${n}`,
            idShort: `Shell${n}`,
            assetInformation: { assetKind: "Instance", globalAssetId: `urn:many-shells:asset:${n}` },
            submodels: [{ type: "ModelReference", keys: [{ type: "Submodel", value: submodelId(shape, n) }] }],
          }),
      );
  parts.push('],"submodels":[');
  for (let n = 0; n < count; n++)
    parts.push((n > 0 ? "," : "") + JSON.stringify(generatedSubmodel(submodelId(shape, n), perSubmodel(shape))));
  parts.push("]}");
  return parts.join("");
}

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const rssOf = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
const cpuMsOf = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Latencies {
  read: number[];
  browse: number[];
  subscribe: number[];
  /** The same subscribe again, its nodes made: what a subscription costs without the lazy part. */
  subscribeAgain: number[];
  /** CPU ms of the serving process per first use (read, browse and subscribe together / 30). */
  cpuPerUse: number;
  /** RSS of the serving process after one read in each of 1,000 submodels. */
  rssThousand: number;
  /** After one read in every submodel: RSS, wall time and serving CPU ms per submodel. */
  walk?: { rss: number; ms: number; cpuPerSubmodel: number };
}

const walkAll = process.env.BENCH_WALK !== "0";
const maxElements = process.env.BENCH_MAX_ELEMENTS;
const gatewayNodeOptions = process.env.BENCH_GATEWAY_NODE_OPTIONS;

/** First read, browse and subscribe on untouched submodels, then one read in each of 1,000 more. */
async function clientLatencies(
  url: string,
  shape: Shape,
  size: number,
  dir: string,
  cpuMs: () => number,
  rss: () => number,
): Promise<Latencies> {
  const { connectOpcua } = await import("../tests/test-support/opcua-client.ts");
  const client = await connectOpcua(url, dir);
  const count = submodelCount(shape, size);
  const untouched = (k: number) => Math.floor(((k * 7919) % 997) * (count / 997)) % count;
  const valueOf = (n: number, p: number) => `${submodelId(shape, n)}|P${p}/Value`;
  const result: Latencies = { read: [], browse: [], subscribe: [], subscribeAgain: [], cpuPerUse: 0, rssThousand: 0 };
  try {
    const cpuBefore = cpuMs();
    for (let k = 0; k < 10; k++) {
      let started = performance.now();
      const read = await client.read(valueOf(untouched(3 * k), 1));
      if (!read.statusCode.isGood()) throw new Error(`read ${valueOf(untouched(3 * k), 1)}: ${read.statusCode}`);
      result.read.push(performance.now() - started);
      started = performance.now();
      const children = await client.children(`${submodelId(shape, untouched(3 * k + 1))}|`);
      if (!children.has("P1")) throw new Error(`browse of ${submodelId(shape, untouched(3 * k + 1))} lacks P1`);
      result.browse.push(performance.now() - started);
      started = performance.now();
      const monitor = await client.monitor(valueOf(untouched(3 * k + 2), 2));
      await monitor.waitFor(() => true, 10_000, "the first notification");
      result.subscribe.push(performance.now() - started);
      await monitor.stop();
    }
    result.cpuPerUse = (cpuMs() - cpuBefore) / 30;
    for (let k = 0; k < 10; k++) {
      const started = performance.now();
      const monitor = await client.monitor(valueOf(untouched(3 * k + 2), 2));
      await monitor.waitFor(() => true, 10_000, "the first notification");
      result.subscribeAgain.push(performance.now() - started);
      await monitor.stop();
    }
    for (let n = 0; n < Math.min(1000, count); n++) await client.read(valueOf(n, 0));
    result.rssThousand = rss();
    if (walkAll) {
      const started = performance.now();
      const cpuBefore = cpuMs();
      for (let n = 0; n < count; n++) {
        const read = await client.read(valueOf(n, 0));
        if (!read.statusCode.isGood()) throw new Error(`walk: read ${valueOf(n, 0)}: ${read.statusCode}`);
      }
      result.walk = { rss: rss(), ms: performance.now() - started, cpuPerSubmodel: (cpuMs() - cpuBefore) / count };
    }
  } finally {
    await client.close();
  }
  return result;
}

const latencyLine = (l: Latencies) =>
  (["read", "browse", "subscribe", "subscribeAgain"] as const)
    .map((kind) => `${kind} ${Math.round(median(l[kind]))}/${Math.round(Math.max(...l[kind]))} ms`)
    .join(", ")
    .replace("subscribeAgain", "subscribe again (nodes made)") +
  ` (CPU ${l.cpuPerUse.toFixed(1)} ms per first use); after 1,000 submodels in use RSS ${mb(l.rssThousand)}` +
  (l.walk
    ? `; after walking every submodel (${seconds(l.walk.ms)}, CPU ${l.walk.cpuPerSubmodel.toFixed(1)} ms each) RSS ${mb(l.walk.rss)}`
    : "");

async function inProcess(shape: Shape, size: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "twinport-bench-opcua-scale-"));
  process.env.XDG_CONFIG_HOME = join(dir, "xdg");
  const { OPCUAServer } = await import("node-opcua");
  const shared = await import("@twinport/shared");
  const { aasServerOptions, attachAddressSpace, routeNodeOpcuaLogsTo } = await import("@twinport/opcua-gateway");
  routeNodeOpcuaLogsTo(shared.createLogger({ role: "bench", level: "fatal", destination: { write: () => undefined } }));
  const bus = shared.createInProcessEventBus();
  const engine = shared.createEngine({ repository: shared.createMemoryRepository(), bus });
  const store = shared.createDirectStoreClient(engine);
  const loaded = await store.execute({
    type: "LoadEnvironment",
    params: { body: environmentText(shape, size), validate: false },
  });
  if (!loaded.ok) throw new Error(loaded.error.message);
  const { freePort } = await import("../tests/test-support/servers.ts");
  const port = await freePort();
  const { config } = shared.loadConfig({ role: "opcua-gateway", endpointKinds: ["opcua"] });
  const endpoint = config.endpoints[0] as import("@twinport/shared").OpcUaEndpointConfig;
  if (maxElements !== undefined) endpoint.maxMaterializedElements = Number(maxElements);
  const server = new OPCUAServer({ port, hostname: "127.0.0.1", ...aasServerOptions() });
  await server.initialize();
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const aas = await attachAddressSpace(server, { store, bus, endpoint, log: () => undefined });
  await server.start();
  const readyMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  global.gc?.();
  const rssAfter = process.memoryUsage().rss;
  // The client runs in this process too: its CPU is counted with the server's.
  const latencies = await clientLatencies(
    server.getEndpointUrl(),
    shape,
    size,
    dir,
    () => {
      const usage = process.cpuUsage();
      return (usage.user + usage.system) / 1000;
    },
    () => {
      global.gc?.();
      return process.memoryUsage().rss;
    },
  );
  const materialized = aas.lazy.materializedCount;
  const elements = aas.lazy.materializedElements;
  await aas.stop();
  await server.shutdown(0);
  rmSync(dir, { recursive: true, force: true });
  console.log(
    JSON.stringify({
      line:
        `in-process  (${shape}) ${String(size).padStart(9)} elements: ready in ${seconds(readyMs)} (CPU ${seconds((cpu.user + cpu.system) / 1000)}), ` +
        `RSS ${mb(rssBefore)} → ${mb(rssAfter)} (+${mb(rssAfter - rssBefore)} for the address space; the model itself is in this process); ` +
        `first use median/max: ${latencyLine(latencies)}; at the end ${materialized} identifiables / ${elements} elements made (maxMaterializedElements ${endpoint.maxMaterializedElements})`,
    }),
  );
}

async function distributed(shape: Shape, size: number): Promise<string> {
  const { freePort, startNats, startRedis } = await import("../tests/test-support/servers.ts");
  const { startTwinport } = await import("../tests/test-support/system.ts");
  const dir = mkdtempSync(join(tmpdir(), "twinport-bench-opcua-scale-"));
  writeFileSync(join(dir, "model.json"), environmentText(shape, size));
  const [redis, nats] = await Promise.all([startRedis({ appendOnly: true }), startNats()]);
  const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
  let store: Awaited<ReturnType<typeof startTwinport>> | undefined;
  try {
    const seeding = performance.now();
    store = await startTwinport({
      role: "model-store",
      cwd: dir,
      args: ["-m", "model.json", "--no-validation"],
      env,
      timeoutMs: 1_800_000,
    });
    const seedMs = performance.now() - seeding;
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
            ...(maxElements !== undefined ? { maxMaterializedElements: Number(maxElements) } : {}),
          },
        ],
      }),
    );
    const started = performance.now();
    const gateway = await startTwinport({
      role: "opcua-gateway",
      cwd: dir,
      args: ["-c", "opcua.json"],
      // e.g. BENCH_GATEWAY_NODE_OPTIONS=--max-old-space-size=1536: how far RSS follows the V8 heap limit.
      env: gatewayNodeOptions ? { ...env, NODE_OPTIONS: gatewayNodeOptions } : env,
      timeoutMs: 600_000,
    });
    const readyMs = performance.now() - started;
    const pid = gateway.child.pid!;
    const rss = rssOf(pid);
    const cpuReady = cpuMsOf(pid);
    const url = (gateway.details.opcua as string[])[0]!;
    let latencies: Latencies | undefined;
    try {
      latencies = await clientLatencies(
        url,
        shape,
        size,
        dir,
        () => cpuMsOf(pid),
        () => rssOf(pid),
      );
    } finally {
      await gateway.stop();
      const built = /store read (\d+) ms, nodes (\d+) ms/.exec(readFileSync(gateway.logFile, "utf8"));
      const split = built
        ? ` (snapshot over NATS ${seconds(Number(built[1]))}, nodes ${seconds(Number(built[2]))})`
        : "";
      return (
        `distributed (${shape}) ${String(size).padStart(9)} elements: model-store seeded in ${seconds(seedMs)}; ` +
        `opcua-gateway ready in ${seconds(readyMs)}${split}, CPU ${seconds(cpuReady)}, RSS ${mb(rss)}; ` +
        `first use median/max: ${latencies ? latencyLine(latencies) : "not measured"} (maxMaterializedElements ${maxElements ?? "default"}${gatewayNodeOptions ? `, NODE_OPTIONS ${gatewayNodeOptions}` : ""})`
      );
    }
  } finally {
    await store?.stop();
    await Promise.all([redis.stop(), nats.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

function child(shape: Shape, size: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const run = spawn(
      process.execPath,
      [
        "--expose-gc",
        "--max-old-space-size=8192",
        "--import",
        "tsx",
        new URL(import.meta.url).pathname,
        "--child",
        shape,
        String(size),
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let output = "";
    run.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    run.once("exit", (code) => {
      const line = output.split("\n").find((text) => text.startsWith("{"));
      if (code !== 0 || line === undefined)
        reject(new Error(`child (${shape}) ${size} exited with ${code}: ${output}`));
      else resolve((JSON.parse(line) as { line: string }).line);
    });
  });
}

if (process.argv[2] === "--child") {
  await inProcess(process.argv[3] as Shape, Number(process.argv[4]));
  process.exit(0);
}

const { execSync } = await import("node:child_process");
console.log(`load: ${execSync("uptime").toString().trim()}`);
for (const size of sizes)
  for (const shape of shapes) {
    if (modes.includes("in-process")) {
      try {
        console.log(await child(shape, size));
      } catch (error) {
        console.log(`in-process  (${shape}) ${size} elements: failed: ${(error as Error).message.split("\n")[0]}`);
      }
    }
    if (modes.includes("distributed")) {
      try {
        console.log(await distributed(shape, size));
      } catch (error) {
        console.log(`distributed (${shape}) ${size} elements: failed: ${(error as Error).message.split("\n")[0]}`);
      }
    }
  }
console.log(`load: ${execSync("uptime").toString().trim()}`);
