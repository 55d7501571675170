/**
 * Issue 19 item 3: a whole-model `/serialization` is read from the store in bounded batches and
 * written as it goes (docs/adr/0034). A generated model of BENCH_SUBMODELS × BENCH_ELEMENTS
 * Properties (default 10,000 × 100 = 1M elements) is loaded in embedded mode (memory store) and in
 * distributed mode (redis-server with AOF and `appendfsync always`, nats-server, model-store,
 * http-gateway); then each format is downloaded once over plain HTTP. Printed per download: time,
 * bytes, that the body is complete (every Property and the closing of the environment), the CPU each
 * process used, and each process's RSS before and its peak while serving (sampled every 50 ms):
 * the target is ≤ 300 MB above the RSS before, in every process.
 *
 * Run: npm run bench -- big-serialization
 *      (BENCH_SUBMODELS=10000 BENCH_ELEMENTS=100 BENCH_MODES=embedded,distributed BENCH_FORMATS=json,xml,aasx)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_AASX_LIMITS, readAasx } from "@twinport/shared";
import { freePort, startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport, type TwinportProcess } from "../tests/test-support/system.ts";
import { generatedSubmodel } from "./test-support/generated-model.ts";
import { formatCpuPerRequest, processCpuMs } from "./test-support/process-cpu.ts";

const SUBMODELS = Number(process.env.BENCH_SUBMODELS ?? 10_000);
const ELEMENTS = Number(process.env.BENCH_ELEMENTS ?? 100);
const MODES = process.env.BENCH_MODES?.split(",") ?? ["embedded", "distributed"];
const FORMATS = process.env.BENCH_FORMATS?.split(",") ?? ["json", "xml", "aasx"];
const TOTAL = SUBMODELS * ELEMENTS;
const ACCEPT: Record<string, string> = {
  json: "application/json",
  xml: "application/xml",
  aasx: "application/asset-administration-shell-package+xml",
};

const dir = mkdtempSync(join(tmpdir(), "twinport-bench-big-serialization-"));
const modelFile = join(dir, "model.json");
{
  // Written submodel by submodel: the bench itself should not need the whole model as objects.
  const parts = ['{"submodels":['];
  for (let i = 0; i < SUBMODELS; i++)
    parts.push(`${i ? "," : ""}${JSON.stringify(generatedSubmodel(`urn:bench:big:Sm${i}`, ELEMENTS))}`);
  parts.push("]}");
  writeFileSync(modelFile, parts.join(""));
}

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : 0;
}

async function httpConfig(): Promise<{ file: string; port: number }> {
  const port = await freePort();
  const file = join(dir, `http-${port}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: false }],
    }),
  );
  return { file, port };
}

/** Occurrences of `marker` in a streamed body, across chunk boundaries, and the body's last bytes. */
function counter(marker: string) {
  let count = 0;
  let tail = "";
  let last = "";
  return {
    add(chunk: Buffer) {
      const text = tail + chunk.toString("latin1");
      let at = text.indexOf(marker);
      while (at !== -1) {
        count++;
        at = text.indexOf(marker, at + marker.length);
      }
      tail = text.slice(Math.max(0, text.length - marker.length + 1));
      last = (last + chunk.toString("latin1")).slice(-32);
    },
    get count() {
      return count;
    },
    get last() {
      return last;
    },
  };
}

/** One GET /serialization: time, bytes, completeness. AASX is kept whole to be read as a package. */
async function download(port: number, format: string): Promise<{ ms: number; bytes: number; complete: string }> {
  const started = performance.now();
  const marker = format === "json" ? '"modelType":"Property"' : "<property>";
  const seen = counter(marker);
  const kept: Buffer[] = [];
  let bytes = 0;
  const status = await new Promise<number>((resolve, reject) => {
    const request = http.get(
      { host: "127.0.0.1", port, path: "/api/v3.0/serialization", headers: { accept: ACCEPT[format] } },
      (response) => {
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          if (format === "aasx") kept.push(chunk);
          else seen.add(chunk);
        });
        response.on("end", () => resolve(response.statusCode ?? 0));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
  });
  const ms = performance.now() - started;
  if (status !== 200)
    return { ms, bytes, complete: `NO: status ${status} ${Buffer.concat(kept).toString("utf8").slice(0, 200)}` };
  let elements = seen.count;
  let closed: boolean;
  if (format === "aasx") {
    const environment = readAasx(Buffer.concat(kept), {
      ...DEFAULT_AASX_LIMITS,
      minInflateRatio: 0,
      maxTotalUncompressedBytes: 8 * 1024 ** 3,
      maxEntryUncompressedBytes: 8 * 1024 ** 3,
    }).environment as { submodels?: { submodelElements?: unknown[] }[] };
    elements = (environment.submodels ?? []).reduce(
      (sum, submodel) => sum + (submodel.submodelElements?.length ?? 0),
      0,
    );
    closed = true;
  } else closed = format === "json" ? seen.last.endsWith("}") : seen.last.endsWith("</environment>\n");
  const complete = elements === TOTAL && closed ? "yes" : `NO: ${elements} of ${TOTAL} elements, closed: ${closed}`;
  return { ms, bytes, complete };
}

async function measure(mode: string, port: number, pids: Record<string, number>): Promise<void> {
  for (const format of FORMATS) {
    const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, rssMb(pid)]));
    const cpuBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuMs(pid)]));
    const peak = { ...before };
    const sampler = setInterval(() => {
      for (const [name, pid] of Object.entries(pids)) peak[name] = Math.max(peak[name]!, rssMb(pid));
    }, 50);
    const result = await download(port, format).finally(() => clearInterval(sampler));
    const cpu = Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => [name, processCpuMs(pid) - cpuBefore[name]!]),
    );
    const rss = Object.keys(pids)
      .map(
        (name) =>
          `${name} ${before[name]!.toFixed(0)} → peak ${peak[name]!.toFixed(0)} MB (+${(peak[name]! - before[name]!).toFixed(0)})`,
      )
      .join(", ");
    console.log(
      `${mode} ${format}: ${(result.ms / 1000).toFixed(1)} s, ${(result.bytes / 1024 ** 2).toFixed(0)} MB, complete: ${result.complete}; RSS ${rss}; ${formatCpuPerRequest(cpu, 1)}`,
    );
  }
}

const processes: TwinportProcess[] = [];
const servers: { stop(): Promise<void> }[] = [];
const pidOf = (proc: TwinportProcess) => proc.child.pid!;
try {
  console.log(`model: ${SUBMODELS} submodels × ${ELEMENTS} Properties = ${TOTAL} elements`);
  if (MODES.includes("embedded")) {
    const config = await httpConfig();
    const t0 = performance.now();
    const embedded = await startTwinport({
      cwd: mkdtempSync(join(dir, "embedded-")),
      args: ["-c", config.file, "-m", modelFile, "--endpoint", "http"],
      timeoutMs: 1_800_000,
    });
    processes.push(embedded);
    console.log(`embedded: loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await measure("embedded", config.port, { embedded: pidOf(embedded) });
    await processes.pop()!.stop();
  }
  if (MODES.includes("distributed")) {
    const redis = await startRedis({ appendOnly: true });
    const nats = await startNats();
    servers.push(redis, nats);
    const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
    const t0 = performance.now();
    const store = await startTwinport({
      role: "model-store",
      cwd: mkdtempSync(join(dir, "store-")),
      args: ["-m", modelFile],
      env,
      timeoutMs: 1_800_000,
    });
    processes.push(store);
    console.log(`distributed: loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const config = await httpConfig();
    const gateway = await startTwinport({
      role: "http-gateway",
      cwd: mkdtempSync(join(dir, "gw-")),
      args: ["-c", config.file],
      env,
    });
    processes.push(gateway);
    await measure("distributed", config.port, {
      "model-store": pidOf(store),
      "http-gateway": pidOf(gateway),
      redis: redis.pid,
    });
  }
} finally {
  for (const proc of processes.reverse()) await proc.stop();
  for (const server of servers) await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
