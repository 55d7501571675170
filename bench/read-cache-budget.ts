/**
 * Issue 19 item 5: the HTTP read cache stays within its budget, bookkeeping included. A model of
 * BENCH_SHELLS shells, each with one submodel of 10 Properties (issue 19's model (c) at a size this
 * machine seeds in minutes); every submodel is read twice through the HTTP endpoint (half of them
 * below their shell, which tags the answer with the shell too). Prints the RSS of the process
 * serving HTTP before and after each pass, and the cache's accounted bytes, entries and tag-index
 * rows from its /metrics, then again after BENCH_IDLE_MS of idling (V8 collects what a pass left as
 * garbage when the process goes idle). Its RSS should stay within readCacheMaxBytes + a fixed
 * overhead (the process's own heap, module code, buffers and garbage not yet collected), and not
 * grow from pass to pass or with BENCH_SHELLS.
 *
 * Run: npm run bench -- read-cache-budget
 *      (BENCH_SHELLS=20000 BENCH_BUDGET_MB=16 BENCH_MODES=distributed,embedded BENCH_CONCURRENCY=8
 *       BENCH_PASSES=2 BENCH_IDLE_MS=10000 BENCH_HEAP_MB=)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeBase64Url } from "@twinport/shared";
import { createHttpClient, type HttpClient } from "../tests/test-support/http-client.ts";
import { manyShellsIds, metricSample, writeManyShellsModel } from "../tests/test-support/many-shells-model.ts";
import { freePort, startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport, type TwinportProcess } from "../tests/test-support/system.ts";
import { cpuDuring, formatCpuPerRequest } from "./test-support/process-cpu.ts";

const SHELLS = Number(process.env.BENCH_SHELLS ?? 20_000);
const BUDGET = Number(process.env.BENCH_BUDGET_MB ?? 16) * 1024 * 1024;
const MODES = process.env.BENCH_MODES?.split(",") ?? ["distributed", "embedded"];
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const PASSES = Number(process.env.BENCH_PASSES ?? 2);
/** After the passes, the process idles this long (V8 collects garbage when idle) before the last look. */
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 10_000);
/**
 * V8 collects lazily: with the default heap limit a busy process keeps hundreds of MB of garbage,
 * so its RSS says little about what it retains. BENCH_HEAP_MB caps the old space of the process
 * serving HTTP (--max-old-space-size): if it serves every pass under a cap of budget + a fixed
 * amount, what it retains is bounded by that.
 */
const HEAP_MB = process.env.BENCH_HEAP_MB;
const nodeArgs = HEAP_MB ? [`--max-old-space-size=${HEAP_MB}`] : [];
const MB = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

const dir = mkdtempSync(join(tmpdir(), "twinport-bench-read-cache-"));
const modelFile = join(dir, "model.json");
writeManyShellsModel(modelFile, SHELLS, 10);

/** Resident set size of a process, from /proc (bytes). */
function rss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
}

async function configFile(name: string, messageBusClass: string): Promise<{ file: string; port: number }> {
  const port = await freePort();
  const file = join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      core: { managementPort: 0 },
      messageBus: { "@class": messageBusClass, readCacheMaxBytes: BUDGET, readCacheMaxAgeMs: 600_000 },
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
    }),
  );
  return { file, port };
}

async function cacheMetrics(proc: TwinportProcess): Promise<string> {
  const text = await (await fetch(`${proc.details.management}/metrics`)).text();
  const bytes = metricSample(text, "twinport_read_cache_bytes") ?? Number.NaN;
  const entries = metricSample(text, "twinport_read_cache_entries");
  const tags = metricSample(text, "twinport_read_cache_tags");
  const heap = metricSample(text, "nodejs_heap_size_used_bytes") ?? Number.NaN;
  const heapTotal = metricSample(text, "nodejs_heap_size_total_bytes") ?? Number.NaN;
  const external = metricSample(text, "nodejs_external_memory_bytes") ?? Number.NaN;
  return `cache ${MB(bytes)} accounted (budget ${MB(BUDGET)}), ${entries} entries, ${tags} tags; heap used ${MB(heap)} of ${MB(heapTotal)}, external ${MB(external)}`;
}

/** Every submodel once, CONCURRENCY requests at a time; each answer checked. */
async function pass(client: HttpClient): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let n = next++; n < SHELLS; n = next++) {
      const { shell, submodel } = manyShellsIds(n);
      const path =
        n % 2 === 0
          ? `/submodels/${encodeBase64Url(submodel)}`
          : `/shells/${encodeBase64Url(shell)}/submodels/${encodeBase64Url(submodel)}`;
      const response = await client.get(path);
      if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${response.text}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

async function measure(mode: string, http: TwinportProcess, port: number, pids: Record<string, number>) {
  const client = createHttpClient(`http://127.0.0.1:${port}/api/v3.0`);
  try {
    const pid = http.child.pid!;
    const base = rss(pid);
    console.log(`${mode}: before: RSS ${MB(base)}; ${await cacheMetrics(http)}`);
    for (let round = 1; round <= PASSES; round++) {
      const t = performance.now();
      const { cpuMs } = await cpuDuring(pids, () => pass(client));
      const s = (performance.now() - t) / 1000;
      const now = rss(pid);
      console.log(
        `${mode}: after pass ${round} (${SHELLS} GETs, ${(SHELLS / s).toFixed(0)}/s): RSS ${MB(now)} (+${MB(now - base)}); ${await cacheMetrics(http)}`,
      );
      console.log(`${mode}:   ${formatCpuPerRequest(cpuMs, SHELLS)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idle = rss(pid);
    console.log(
      `${mode}: after ${IDLE_MS / 1000} s idle: RSS ${MB(idle)} (+${MB(idle - base)}); ${await cacheMetrics(http)}`,
    );
  } finally {
    client.close();
  }
}

const processes: TwinportProcess[] = [];
const servers: { stop(): Promise<void> }[] = [];
try {
  console.log(
    `model: ${SHELLS} shells × 1 submodel × 10 Properties; readCacheMaxBytes ${MB(BUDGET)}; ${HEAP_MB ? `HTTP process old space capped at ${HEAP_MB} MB` : "default heap limit"}`,
  );
  if (MODES.includes("distributed")) {
    const [redis, nats] = await Promise.all([startRedis(), startNats()]);
    servers.push(redis, nats);
    const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
    const t0 = performance.now();
    const store = await startTwinport({
      role: "model-store",
      cwd: dir,
      args: ["-m", modelFile],
      env: { ...env, TWINPORT_CORE_MANAGEMENTPORT: "0" },
      timeoutMs: 1_800_000,
    });
    processes.push(store);
    console.log(`distributed: model-store seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const { file, port } = await configFile("gateway", "messagebus.nats.MessageBusNats");
    const gateway = await startTwinport({ role: "http-gateway", cwd: dir, args: ["-c", file], env, nodeArgs });
    processes.push(gateway);
    await measure("distributed", gateway, port, {
      "http-gateway": gateway.child.pid!,
      "model-store": store.child.pid!,
      "redis-server": redis.pid,
      "nats-server": nats.pid,
    });
    await Promise.all(processes.splice(0).map((p) => p.stop()));
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  }
  if (MODES.includes("embedded")) {
    const { file, port } = await configFile("embedded", "messagebus.internal.MessageBusInternal");
    const t0 = performance.now();
    const embedded = await startTwinport({
      cwd: dir,
      args: ["-c", file, "-m", modelFile, "--endpoint", "http"],
      timeoutMs: 1_800_000,
      nodeArgs,
    });
    processes.push(embedded);
    console.log(`embedded: loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s (RSS includes the model)`);
    await measure("embedded", embedded, port, { embedded: embedded.child.pid! });
  }
} finally {
  await Promise.all(processes.map((p) => p.stop()));
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
}
