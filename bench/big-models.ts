/**
 * Issue 19: big models on every endpoint, measured as a new user would. Generates the issue's
 * models, (a) 1,000 shells × 1 submodel × 100 Properties = 100k elements, (b) 10,000 × 100 = 1M,
 * (c) 100,000 × 10 = 1M, and runs each in embedded mode (one process: memory store, HTTP and OPC UA)
 * and distributed mode (redis-server as shipped: AOF, `appendfsync always`; nats-server;
 * model-store; http-gateway; opcua-gateway with a 4 GB heap, all on 127.0.0.1). Every cell of the
 * issue's table gets an answer: a figure, or what happened instead ("503 after 12 s",
 * "out of memory after 245 s (4.29 GB)", "timeout after 60 s"). Each cell has its own deadline, so
 * one failing cell does not end the table. At the end a Markdown table per mode, for docs/scaling.md.
 *
 * Run: nice -n 10 npm run bench -- big-models
 *   BENCH_SIZES=a,b,c  BENCH_MODES=embedded,distributed  BENCH_SCALE=1 (shells × scale; 0.01 for a quick run)
 *   BENCH_START_TIMEOUT_S=1800 (seeding, process ready)  BENCH_REQUEST_TIMEOUT_S=60 (filters, OPC UA)
 *   BENCH_SERIALIZATION_TIMEOUT_S=600  BENCH_PASS_TIMEOUT_S=900 (reading every submodel once)
 *   BENCH_OPCUA_HEAP_MB=4096 (the opcua-gateway's, and the embedded process's, --max-old-space-size)
 *   BENCH_RESULTS=file.jsonl (each column appended as a JSON line; then
 *   `node bench/big-models.ts --table file.jsonl` prints the tables of several runs merged)
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createHttpClient } from "../tests/test-support/http-client.ts";
import { connectOpcua, type OpcuaTestClient } from "../tests/test-support/opcua-client.ts";
import { freePort, type RunningServer, startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport, type TwinportProcess } from "../tests/test-support/system.ts";
import { median } from "./test-support/bench-setup.ts";
import { bigModelIds, semanticMatches, writeBigModel } from "./test-support/big-model.ts";
import { type Cells, type Column, markdownTables, ROWS, readColumns } from "./test-support/big-models-table.ts";
import { cpuDuring, formatCpuPerRequest, processCpuMs } from "./test-support/process-cpu.ts";
import { type PeakWindow, rssBytes, twinportRole, watchChildren } from "./test-support/process-watch.ts";
import { timedGet } from "./test-support/timed-get.ts";

const SIZES: Record<string, { shells: number; properties: number }> = {
  a: { shells: 1_000, properties: 100 },
  b: { shells: 10_000, properties: 100 },
  c: { shells: 100_000, properties: 10 },
};
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const SIZE_KEYS = (process.env.BENCH_SIZES ?? "a,b,c").split(",").filter((key) => key in SIZES);
const MODES = (process.env.BENCH_MODES ?? "embedded,distributed").split(",");
const seconds = (name: string, fallback: number) => Number(process.env[name] ?? fallback) * 1000;
const START_TIMEOUT = seconds("BENCH_START_TIMEOUT_S", 1800);
const REQUEST_TIMEOUT = seconds("BENCH_REQUEST_TIMEOUT_S", 60);
const SERIALIZATION_TIMEOUT = seconds("BENCH_SERIALIZATION_TIMEOUT_S", 600);
const PASS_TIMEOUT = seconds("BENCH_PASS_TIMEOUT_S", 900);
const HEAP_MB = Number(process.env.BENCH_OPCUA_HEAP_MB ?? 4096);
/** Concurrent GETs while reading every submodel (a client fetching a model, not a load test). */
const CONCURRENCY = 8;

const HTTP_ROWS = [
  "serialization",
  "serializationRss",
  "shellsIdShort",
  "submodelsSemanticId",
  "noSuch",
  "point",
  "paging",
  "readCache",
];
type Role = "embedded" | "model-store" | "http-gateway" | "opcua-gateway";
const results: Column[] = [];
/** Each finished column is appended here as a JSON line: runs of one size each merge into one table. */
const RESULTS_FILE = process.env.BENCH_RESULTS;
const commit = (() => {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return "?";
  }
})();

if (process.argv[2] === "--table") {
  // node bench/big-models.ts --table results.jsonl…: the tables of earlier runs, merged.
  console.log(markdownTables(readColumns(process.argv.slice(3))));
  process.exit(0);
}

const MB = (bytes: number) =>
  bytes >= 1024 ** 3
    ? `${(bytes / 1024 ** 3).toFixed(2)} GB`
    : bytes >= 1024 ** 2
      ? `${Math.round(bytes / 1024 ** 2)} MB`
      : `${Math.round(bytes / 1024)} KB`;
const time = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");

const dir = mkdtempSync(join(tmpdir(), "twinport-bench-big-models-"));
const watch = watchChildren();
const processes: TwinportProcess[] = [];
const servers: RunningServer[] = [];

/** Stops what we started: our processes and servers by PID, then any child still alive (SIGKILL). */
async function cleanUp(): Promise<void> {
  for (const proc of processes.splice(0).reverse()) await proc.stop().catch(() => undefined);
  for (const server of servers.splice(0)) await server.stop().catch(() => undefined);
  // A process still starting when Ctrl-C came is not in `processes` yet: it is a child all the same.
  for (const pid of watch.children())
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  watch.stop();
  rmSync(dir, { recursive: true, force: true });
}
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    console.log(`\n${signal}: stopping every process of this bench`);
    printTables();
    void cleanUp().finally(() => process.exit(130));
  });

/** `promise`, or a rejection naming `what` when it has not settled within `ms`. */
async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timeout after ${time(ms)}`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** What became of a process that never printed its ready line. */
function startFailure(error: unknown, ms: number, peak: number, logFile: string): string {
  let log = "";
  try {
    log = readFileSync(logFile, "utf8").slice(-20_000);
  } catch {}
  const message = `${(error as Error).message}\n${log}`;
  const peakText = peak > 0 ? ` (peak RSS ${MB(peak)})` : "";
  if (/heap out of memory|Reached heap limit|Allocation failed/i.test(message))
    return `out of memory after ${time(ms)}${peakText}`;
  if (/not ready within/.test(message)) return `timeout: not ready after ${time(ms)}${peakText}`;
  const exited = /exited with (\S+) before ready/.exec(message);
  const reason = log
    .split("\n")
    .reverse()
    .find((line) => /error/i.test(line));
  return `exited (${exited?.[1] ?? "?"}) after ${time(ms)}${peakText}${reason ? `: ${reason.slice(0, 160)}` : ""}`;
}

/** The load as the process logs it ("loaded the model files: … in 12.3 s"), in ms. */
function loggedLoadMs(logFile: string): number | undefined {
  try {
    const match = /loaded the model files[^"]*? in ([\d.]+) (ms|s)/.exec(readFileSync(logFile, "utf8"));
    return match ? Number(match[1]) * (match[2] === "s" ? 1000 : 1) : undefined;
  } catch {
    return undefined;
  }
}

function redisUsedMemory(port: number): number {
  const info = execFileSync("redis-cli", ["-h", "127.0.0.1", "-p", String(port), "info", "memory"], {
    encoding: "utf8",
  });
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

function writeConfig(name: string, config: Record<string, unknown>): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  return file;
}
const httpEndpoint = (port: number) => ({
  "@class": "endpoint.http.HttpEndpoint",
  port,
  host: "127.0.0.1",
  sslEnabled: false,
});
const opcuaEndpoint = (tcpPort: number) => ({
  "@class": "endpoint.opcua.OpcUaEndpoint",
  tcpPort,
  host: "127.0.0.1",
  hostname: "127.0.0.1",
  secondsTillShutdown: 0,
});

/** Starts a process: it, or what became of it (printed as well). */
async function start(
  label: string,
  options: Parameters<typeof startTwinport>[0] & { role: Role; cwd: string },
  window: PeakWindow,
): Promise<{ proc?: TwinportProcess; ms: number; failure?: string }> {
  const started = performance.now();
  try {
    const proc = await startTwinport({ timeoutMs: START_TIMEOUT, ...options });
    processes.push(proc);
    return { proc, ms: performance.now() - started };
  } catch (error) {
    const ms = performance.now() - started;
    const failure = startFailure(
      error,
      ms,
      window.peak(twinportRole(options.role)),
      join(options.cwd, `${options.role}.log`),
    );
    console.log(`  ${label}: ${failure}`);
    return { ms, failure };
  }
}

async function stopProcess(proc: TwinportProcess | undefined): Promise<void> {
  if (!proc) return;
  processes.splice(processes.indexOf(proc), 1);
  await proc.stop();
}

/** A filter's cell: the first request after start, then the median of three more. */
async function filterCell(port: number, path: string, expected: number): Promise<string> {
  const describe = (response: Awaited<ReturnType<typeof timedGet>>): string => {
    if (response.failure) return response.failure;
    if (response.status !== 200) {
      let text = "";
      try {
        text = JSON.parse(response.head).messages?.[0]?.text ?? "";
      } catch {}
      return `**${response.status}** after ${time(response.ms)}${text ? ` ("${text.slice(0, 80)}")` : ""}`;
    }
    let count = Number.NaN;
    try {
      count = JSON.parse(response.head).result.length;
    } catch {}
    return count === expected ? time(response.ms) : `${time(response.ms)} (${count} results, expected ${expected})`;
  };
  const cold = await timedGet(port, path, { timeoutMs: REQUEST_TIMEOUT });
  const warm = [];
  for (let i = 0; i < 3 && !cold.failure; i++) warm.push(await timedGet(port, path, { timeoutMs: REQUEST_TIMEOUT }));
  const warmOk = warm.filter((r) => r.status === 200);
  const warmText =
    warm.length === 0
      ? "not tried"
      : warmOk.length === warm.length
        ? describe({ ...warmOk[0]!, ms: median(warmOk.map((r) => r.ms)) })
        : describe(warm.find((r) => r.status !== 200)!);
  return `${describe(cold)} / ${warmText}`;
}

/** Occurrences of `marker` in a streamed body, across chunk boundaries. */
function markerCounter(marker: string) {
  let count = 0;
  let tail = "";
  return {
    add(chunk: Buffer) {
      const text = tail + chunk.toString("latin1");
      for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + marker.length)) count++;
      tail = text.slice(Math.max(0, text.length - marker.length + 1));
    },
    get count() {
      return count;
    },
  };
}

async function serializationCells(
  port: number,
  pids: Record<string, number>,
  elements: number,
  cells: Cells,
): Promise<void> {
  const window = watch.window();
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, rssBytes(pid)]));
  const cpuBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuMs(pid)]));
  const properties = markerCounter('"modelType":"Property"');
  const response = await timedGet(port, "/serialization", {
    timeoutMs: SERIALIZATION_TIMEOUT,
    onChunk: (chunk) => properties.add(chunk),
  });
  const cpu = Object.entries(pids).map(([name, pid]) => `${name} ${time(processCpuMs(pid) - cpuBefore[name]!)}`);
  cells.serializationRss = Object.entries(pids)
    .map(([name, pid]) => `${name} +${MB(Math.max(0, window.peakOf(pid) - before[name]!))}`)
    .join(", ");
  window.close();
  if (response.failure) cells.serialization = `${response.failure}, ${MB(response.bytes)} received`;
  else if (response.status !== 200) {
    let text = "";
    try {
      text = JSON.parse(response.head).messages?.[0]?.text ?? "";
    } catch {}
    cells.serialization = `**${response.status}** after ${time(response.ms)}${text ? ` ("${text.slice(0, 80)}")` : ""}`;
  } else {
    const complete = properties.count === elements ? "" : ` (**${properties.count} of ${elements} Properties**)`;
    cells.serialization = `200, ${time(response.ms)}, ${MB(response.bytes)}${complete}`;
  }
  console.log(`  /serialization: ${cells.serialization}; RSS growth ${cells.serializationRss}; CPU ${cpu.join(", ")}`);
}

/**
 * Point reads and writes stay flat as the model grows (issue 19): `$value` of P1 read, then
 * written, in 20 submodels from the middle of the model that no request touched before (the read
 * cache cannot answer them).
 */
async function pointCells(port: number, shells: number): Promise<string> {
  const client = createHttpClient(`http://127.0.0.1:${port}/api/v3.0`);
  try {
    const picks = Array.from({ length: Math.min(20, shells - 2) }, (_, i) => Math.floor(shells / 2) + i - 10);
    const path = (n: number) =>
      `/submodels/${Buffer.from(bigModelIds(Math.max(0, n)).submodel).toString("base64url")}/submodel-elements/P1/$value`;
    const gets: number[] = [];
    const patches: number[] = [];
    const failures: string[] = [];
    for (const [list, method] of [
      [gets, "GET"],
      [patches, "PATCH"],
    ] as const)
      for (const n of picks) {
        const started = performance.now();
        try {
          const response = await within(
            REQUEST_TIMEOUT,
            client.request(method, path(n), method === "PATCH" ? { body: "7" } : {}),
            method,
          );
          if (response.status === (method === "GET" ? 200 : 204)) list.push(performance.now() - started);
          else failures.push(`${method} ${response.status}`);
        } catch (error) {
          failures.push(`${method}: ${(error as Error).message.split("\n")[0]}`);
        }
      }
    const text = (values: number[]) => (values.length ? time(median(values)) : "none");
    return `${text(gets)} / ${text(patches)}${failures.length ? ` (failed: ${[...new Set(failures)].join(", ")})` : ""}`;
  } finally {
    client.close();
  }
}

/** Cursor paging is as fast deep in the list as on its first page: every page of the shells. */
async function pagingCell(port: number, shells: number): Promise<string> {
  const client = createHttpClient(`http://127.0.0.1:${port}/api/v3.0`);
  try {
    const times: number[] = [];
    let cursor: string | undefined;
    let seen = 0;
    do {
      const started = performance.now();
      const path = `/shells?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      let response: Awaited<ReturnType<typeof client.get>>;
      try {
        response = await within(REQUEST_TIMEOUT, client.get(path), `page ${times.length + 1}`);
      } catch (error) {
        return (error as Error).message.split("\n")[0]!;
      }
      const ms = performance.now() - started;
      if (response.status !== 200) return `page ${times.length + 1}: **${response.status}** after ${time(ms)}`;
      times.push(ms);
      const page = response.json() as { result: unknown[]; paging_metadata: { cursor?: string } };
      seen += page.result.length;
      cursor = page.paging_metadata.cursor;
    } while (cursor !== undefined);
    const complete = seen === shells ? "" : `, **${seen} of ${shells} shells**`;
    return `${time(times[0]!)} / ${time(median(times.slice(-5)))} (${times.length} page${times.length === 1 ? "" : "s"}${complete})`;
  } finally {
    client.close();
  }
}

/** Every submodel once, CONCURRENCY at a time, within PASS_TIMEOUT: what was read, and how. */
async function readEverySubmodel(port: number, shells: number): Promise<string> {
  const deadline = performance.now() + PASS_TIMEOUT;
  const statuses = new Map<string, number>();
  let next = 0;
  let read = 0;
  const worker = async () => {
    for (let n = next++; n < shells && performance.now() < deadline; n = next++) {
      const path = `/submodels/${Buffer.from(bigModelIds(n).submodel).toString("base64url")}`;
      const response = await timedGet(port, path, { timeoutMs: REQUEST_TIMEOUT });
      const key = response.failure ? "failed" : String(response.status);
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      read++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const notOk = [...statuses].filter(([key]) => key !== "200").map(([key, count]) => `${count}× ${key}`);
  return `${read < shells ? `timeout after ${time(PASS_TIMEOUT)}: ${read} of ${shells} read` : ""}${notOk.length ? ` ${notOk.join(", ")}` : ""}`.trim();
}

async function httpCells(
  port: number,
  httpPid: number,
  pids: Record<string, number>,
  shells: number,
  properties: number,
  cells: Cells,
): Promise<void> {
  const last = bigModelIds(shells - 1);
  const semantic = Buffer.from(last.semanticId).toString("base64url");
  cells.shellsIdShort = await filterCell(port, `/shells?idShort=${last.shellIdShort}`, 1);
  cells.submodelsSemanticId = await filterCell(
    port,
    `/submodels?semanticId=${semantic}`,
    semanticMatches(shells, shells - 1),
  );
  cells.noSuch = await filterCell(port, "/shells?idShort=NoSuch&limit=1", 0);
  console.log(
    `  /shells?idShort: ${cells.shellsIdShort}; /submodels?semanticId: ${cells.submodelsSemanticId}; NoSuch: ${cells.noSuch}`,
  );
  cells.point = await pointCells(port, shells);
  cells.paging = await pagingCell(port, shells);
  console.log(`  point GET / PATCH: ${cells.point}; paging: ${cells.paging}`);
  await serializationCells(port, pids, shells * properties, cells);
  const rss = [rssBytes(httpPid)];
  const notes: string[] = [];
  for (let pass = 1; pass <= 2; pass++) {
    const started = performance.now();
    const { result, cpuMs } = await cpuDuring(pids, () => readEverySubmodel(port, shells));
    const s = (performance.now() - started) / 1000;
    rss.push(rssBytes(httpPid));
    if (result) notes.push(`pass ${pass}: ${result}`);
    console.log(
      `  read every submodel, pass ${pass}: ${(shells / s).toFixed(0)}/s ${result}; ${formatCpuPerRequest(cpuMs, shells)}`,
    );
  }
  cells.readCache = `${rss.map((bytes) => Math.round(bytes / 1024 ** 2)).join(" → ")} MB${notes.length ? ` (${notes.join("; ")})` : ""}`;
  console.log(`  HTTP process RSS: ${cells.readCache}`);
}

async function opcuaCells(opcuaPort: number, shells: number, properties: number, cells: Cells): Promise<void> {
  let client: OpcuaTestClient | undefined;
  try {
    const connectStarted = performance.now();
    client = await within(
      REQUEST_TIMEOUT,
      connectOpcua(`opc.tcp://127.0.0.1:${opcuaPort}`, join(dir, "opcua-client")),
      "connect",
    );
    const connectMs = performance.now() - connectStarted;
    // Elements no client asked for before: the last submodel (browse) and the one before (subscribe).
    const browsed = `${bigModelIds(shells - 1).submodel}|P${properties - 1}`;
    let started = performance.now();
    try {
      const children = await within(REQUEST_TIMEOUT, client.children(browsed), "browse");
      const ms = performance.now() - started;
      cells.browse = children.has("Value") ? time(ms) : `no Value child after ${time(ms)} (${children.size} children)`;
    } catch (error) {
      cells.browse = (error as Error).message;
    }
    const n = Math.max(0, shells - 2);
    const subscribed = `${bigModelIds(n).submodel}|P${properties - 2}/Value`;
    started = performance.now();
    try {
      const monitor = await within(REQUEST_TIMEOUT, client.monitor(subscribed), "subscribe");
      const createdMs = performance.now() - started;
      const first = await monitor.waitFor(() => true, REQUEST_TIMEOUT, "first notification");
      const ms = performance.now() - started;
      const expected = n + properties - 2;
      // Subscription and monitored item created (two round trips), then the first publish.
      const split = `${time(ms)} (item created after ${time(createdMs)})`;
      cells.subscribe =
        first.value.value === expected ? split : `${split}, but value ${first.value.value} (expected ${expected})`;
    } catch (error) {
      cells.subscribe = (error as Error).message.split("\n")[0]!.slice(0, 160);
    }
    console.log(`  OPC UA: connect ${time(connectMs)}, browse ${cells.browse}, subscribe ${cells.subscribe}`);
  } catch (error) {
    cells.browse = cells.subscribe = `no session: ${(error as Error).message.split("\n")[0]!.slice(0, 120)}`;
    console.log(`  OPC UA: ${cells.browse}`);
  } finally {
    await client?.close().catch(() => undefined);
  }
}

async function runEmbedded(modelFile: string, shells: number, properties: number, cells: Cells): Promise<void> {
  const elements = shells * properties;
  const window = watch.window();
  const httpPort = await freePort();
  const opcuaPort = await freePort();
  const cwd = mkdtempSync(join(dir, "embedded-"));
  const config = writeConfig("embedded", { endpoints: [httpEndpoint(httpPort), opcuaEndpoint(opcuaPort)] });
  const nodeArgs = [`--max-old-space-size=${HEAP_MB}`];
  let { proc, ms, failure } = await start(
    "embedded (HTTP + OPC UA)",
    { role: "embedded", cwd, args: ["-c", config, "-m", modelFile], nodeArgs },
    window,
  );
  const loadMs = loggedLoadMs(join(cwd, "embedded.log"));
  cells.seed =
    loadMs === undefined
      ? `not logged${failure ? ` (${failure})` : ""}`
      : `${time(loadMs)}, ${Math.round(elements / (loadMs / 1000)).toLocaleString("en")}/s`;
  if (proc) {
    cells.opcuaReady = `${time(ms)} / ${MB(rssBytes(proc.child.pid!))}`;
    console.log(`  embedded: model loaded in ${cells.seed}; ready ${cells.opcuaReady}`);
    await httpCells(httpPort, proc.child.pid!, { embedded: proc.child.pid! }, shells, properties, cells);
    await opcuaCells(opcuaPort, shells, properties, cells);
  } else {
    cells.opcuaReady = failure!;
    cells.browse = cells.subscribe = "not measured: the process did not start";
    const failedPeak = window.peak(twinportRole("embedded"));
    // The HTTP rows still get answers: the same process without its OPC UA endpoint.
    const cwdHttp = mkdtempSync(join(dir, "embedded-http-"));
    ({ proc, ms, failure } = await start(
      "embedded (HTTP only)",
      { role: "embedded", cwd: cwdHttp, args: ["-c", config, "-m", modelFile, "--endpoint", "http"], nodeArgs },
      window,
    ));
    if (proc) {
      console.log(`  embedded without OPC UA: ready in ${time(ms)}`);
      await httpCells(httpPort, proc.child.pid!, { embedded: proc.child.pid! }, shells, properties, cells);
      for (const row of HTTP_ROWS) if (row !== "serializationRss") cells[row] += " (HTTP only)";
      cells.storePeak = `${MB(window.peakOf(proc.child.pid!))} HTTP only (with OPC UA: ${MB(failedPeak)})`;
    } else {
      for (const row of HTTP_ROWS) cells[row] = `not measured: ${failure}`;
      cells.storePeak = MB(window.peak(twinportRole("embedded")));
    }
  }
  cells.redisBytes = "n/a (memory store)";
  cells.storePeak ??= MB(window.peak(twinportRole("embedded")));
  window.close();
  await stopProcess(proc);
}

async function runDistributed(modelFile: string, shells: number, properties: number, cells: Cells): Promise<void> {
  const elements = shells * properties;
  const [redis, nats] = await Promise.all([startRedis({ appendOnly: true }), startNats()]);
  servers.push(redis, nats);
  const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
  const window = watch.window();
  const usedBefore = redisUsedMemory(redis.port);
  const storeCwd = mkdtempSync(join(dir, "model-store-"));
  const store = await start(
    "model-store",
    { role: "model-store", cwd: storeCwd, args: ["-m", modelFile], env },
    window,
  );
  const seedPeak = window.peak(twinportRole("model-store"));
  const started: TwinportProcess[] = [];
  try {
    if (!store.proc) {
      cells.seed = store.failure!;
      for (const [row] of ROWS) cells[row] ??= "not measured: the model-store did not seed";
      cells.storePeak = MB(seedPeak);
      return;
    }
    started.push(store.proc);
    const loadMs = loggedLoadMs(join(storeCwd, "model-store.log"));
    // The load as the model-store logs it (the process's own start-up apart), and its ready time.
    const seedMs = loadMs ?? store.ms;
    cells.seed = `${time(seedMs)}, ${Math.round(elements / (seedMs / 1000)).toLocaleString("en")}/s (ready after ${time(store.ms)})`;
    const used = redisUsedMemory(redis.port);
    cells.redisBytes = `${Math.round((used - usedBefore) / elements)} (${MB(used)} in all)`;
    console.log(
      `  model-store: seeded in ${cells.seed}; peak RSS ${MB(seedPeak)}; Redis ${cells.redisBytes} bytes per element`,
    );

    const httpPort = await freePort();
    const gateway = await start(
      "http-gateway",
      {
        role: "http-gateway",
        cwd: mkdtempSync(join(dir, "http-gateway-")),
        args: ["-c", writeConfig("http-gateway", { endpoints: [httpEndpoint(httpPort)] })],
        env,
      },
      window,
    );
    if (gateway.proc) {
      started.push(gateway.proc);
      const pids = { "model-store": store.proc.child.pid!, "http-gateway": gateway.proc.child.pid!, redis: redis.pid };
      await httpCells(httpPort, gateway.proc.child.pid!, pids, shells, properties, cells);
    } else
      for (const row of [
        "serialization",
        "serializationRss",
        "shellsIdShort",
        "submodelsSemanticId",
        "noSuch",
        "readCache",
      ])
        cells[row] = `not measured: http-gateway ${gateway.failure}`;

    const opcuaPort = await freePort();
    const opcua = await start(
      "opcua-gateway",
      {
        role: "opcua-gateway",
        cwd: mkdtempSync(join(dir, "opcua-gateway-")),
        args: ["-c", writeConfig("opcua-gateway", { endpoints: [opcuaEndpoint(opcuaPort)] })],
        env,
        nodeArgs: [`--max-old-space-size=${HEAP_MB}`],
      },
      window,
    );
    if (opcua.proc) {
      started.push(opcua.proc);
      cells.opcuaReady = `${time(opcua.ms)} / ${MB(rssBytes(opcua.proc.child.pid!))}`;
      console.log(`  opcua-gateway: ready / RSS ${cells.opcuaReady}`);
      await opcuaCells(opcuaPort, shells, properties, cells);
    } else {
      cells.opcuaReady = opcua.failure!;
      cells.browse = cells.subscribe = "not measured: the opcua-gateway did not start";
    }
    cells.storePeak = `${MB(window.peak(twinportRole("model-store")))} (seeding ${MB(seedPeak)})`;
  } finally {
    window.close();
    for (const proc of started.reverse()) await stopProcess(proc);
    for (const server of [nats, redis]) {
      servers.splice(servers.indexOf(server), 1);
      await server.stop();
    }
  }
}

function printTables(): void {
  console.log(`\n${markdownTables(results)}`);
}

function scaled(key: string): { shells: number; properties: number } {
  const { shells, properties } = SIZES[key]!;
  return { shells: Math.max(2, Math.round(shells * SCALE)), properties };
}

try {
  for (const key of SIZE_KEYS) {
    const { shells, properties } = scaled(key);
    const sizeDir = join(dir, key);
    mkdirSync(sizeDir);
    const modelFile = join(sizeDir, "model.json");
    const bytes = writeBigModel(modelFile, shells, properties);
    console.log(
      `\n== (${key}) ${shells.toLocaleString("en")} shells × 1 submodel × ${properties} Properties = ${(shells * properties).toLocaleString("en")} elements; model file ${MB(bytes)}`,
    );
    for (const mode of MODES) {
      const cells: Cells = {};
      const column: Column = { mode, size: key, shells, properties, scale: SCALE, commit, load: load(), cells };
      results.push(column);
      console.log(`-- ${mode} (${key}); load ${load()}`);
      try {
        if (mode === "embedded") await runEmbedded(modelFile, shells, properties, cells);
        else if (mode === "distributed") await runDistributed(modelFile, shells, properties, cells);
        else console.log(`  unknown mode ${mode}: embedded or distributed`);
      } catch (error) {
        // A failure of the bench itself (not of a cell): the cells so far stay, the rest say so.
        const text = (error as Error).message.split("\n")[0]!.slice(0, 160);
        console.log(`  bench failure: ${(error as Error).stack}`);
        for (const [row] of ROWS) cells[row] ??= `not measured: ${text}`;
      }
      column.at = new Date().toISOString().slice(0, 16).replace("T", " ");
      if (RESULTS_FILE) appendFileSync(RESULTS_FILE, `${JSON.stringify(column)}\n`);
    }
    rmSync(sizeDir, { recursive: true, force: true });
  }
  printTables();
} finally {
  await cleanUp();
}
// An OPC UA connect abandoned at its deadline may still hold a socket: the bench is done all the same.
process.exit(0);
