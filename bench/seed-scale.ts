/**
 * Issue 19 item 4: start-up models are read in chunks and committed in batches (docs/adr/0037).
 * Seeds issue 19's models (b) BENCH_SUBMODELS × BENCH_ELEMENTS Properties (default 10,000 × 100)
 * and (c) BENCH_SHELLS shells each with one submodel of BENCH_SHELL_ELEMENTS Properties (default
 * 100,000 × 10) into Redis (a model-store; redis-server with AOF and `appendfsync always`, as
 * shipped) and into memory (embedded mode). Printed per run: elements per second of the load (from
 * the process's own "loaded the model files" line), the wall time to ready, the peak RSS of the
 * loading process (sampled every 100 ms) and of Redis, and the CPU each used. Then (b) is
 * exported as one AASX (GET /serialization) — time, size, peak RSS — and that package is seeded
 * again with the default limits, to show our own export is importable.
 *
 * Run: npm run bench -- seed-scale
 *      (BENCH_CASES=b,c BENCH_TARGETS=redis,memory BENCH_EXPORT=1; sizes as above)
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeManyShellsModelFile, writeSubmodelsModelFile } from "../tests/test-support/model-file-writer.ts";
import { freePort, startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport, type TwinportProcess } from "../tests/test-support/system.ts";
import { processCpuMs } from "./test-support/process-cpu.ts";

const SUBMODELS = Number(process.env.BENCH_SUBMODELS ?? 10_000);
const ELEMENTS = Number(process.env.BENCH_ELEMENTS ?? 100);
const SHELLS = Number(process.env.BENCH_SHELLS ?? 100_000);
const SHELL_ELEMENTS = Number(process.env.BENCH_SHELL_ELEMENTS ?? 10);
const CASES = process.env.BENCH_CASES?.split(",") ?? ["b", "c"];
const TARGETS = process.env.BENCH_TARGETS?.split(",") ?? ["redis", "memory"];
const EXPORT = process.env.BENCH_EXPORT !== "0";

const dir = mkdtempSync(join(tmpdir(), "twinport-bench-seed-scale-"));

function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Peak RSS of processes while `work` runs; the pids may appear only once it has started. */
async function peakRss<T>(
  pids: () => Record<string, number>,
  work: () => Promise<T>,
): Promise<{ result: T; peak: Record<string, number> }> {
  const peak: Record<string, number> = {};
  const sample = () => {
    for (const [name, pid] of Object.entries(pids())) peak[name] = Math.max(peak[name] ?? 0, rssMb(pid));
  };
  const sampler = setInterval(sample, 100);
  try {
    const result = await work();
    sample();
    return { result, peak };
  } finally {
    clearInterval(sampler);
  }
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

/** The process's own final load line: elements and milliseconds. */
function loadedLine(proc: TwinportProcess): { elements: number; ms: number } | undefined {
  const out = readFileSync(join(proc.logFile, "..", `${proc.role}.out`), "utf8") + readFileSync(proc.logFile, "utf8");
  for (const line of out.split("\n").reverse()) {
    if (!line.includes("loaded the model files")) continue;
    try {
      const fields = JSON.parse(line) as { done?: number; ms?: number };
      if (fields.done !== undefined && fields.ms !== undefined) return { elements: fields.done, ms: fields.ms };
    } catch {
      const m = /loaded the model files: ([\d,]+) elements.* in ([\d.]+) (m?s)/.exec(line);
      if (m)
        return {
          elements: Number(m[1]!.replaceAll(",", "")),
          ms: Number(m[2]) * (m[3] === "s" ? 1000 : 1),
        };
    }
  }
  return undefined;
}

const stopping: { stop(): Promise<unknown> }[] = [];

async function seed(
  label: string,
  target: string,
  modelFile: string,
): Promise<{ proc: TwinportProcess; port?: number; pids: Record<string, number> }> {
  const t0 = performance.now();
  let proc: TwinportProcess | undefined;
  let redisPid: number | undefined;
  let port: number | undefined;
  const { peak } = await peakRss(
    () => ({
      ...(proc ? { [target === "redis" ? "model-store" : "embedded"]: proc.child.pid! } : {}),
      ...(redisPid ? { redis: redisPid } : {}),
    }),
    async () => {
      if (target === "redis") {
        const redis = await startRedis({ appendOnly: true });
        const nats = await startNats();
        stopping.push(redis, nats);
        redisPid = redis.pid;
        const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
        const starting = startTwinport({
          role: "model-store",
          cwd: mkdtempSync(join(dir, "store-")),
          args: ["-m", modelFile],
          env,
          timeoutMs: 3_600_000,
        });
        proc = await starting;
      } else {
        const config = await httpConfig();
        port = config.port;
        proc = await startTwinport({
          cwd: mkdtempSync(join(dir, "embedded-")),
          args: ["-c", config.file, "-m", modelFile, "--endpoint", "http"],
          timeoutMs: 3_600_000,
        });
      }
    },
  );
  const wallS = (performance.now() - t0) / 1000;
  const pids: Record<string, number> = { [target === "redis" ? "model-store" : "embedded"]: proc!.child.pid! };
  if (redisPid) pids.redis = redisPid;
  const loaded = loadedLine(proc!);
  // CPU per element beside the rate: on a shared machine the rate says how busy it was, the CPU what the load costs.
  const cpu = Object.entries(pids)
    .map(([name, pid]) => {
      const ms = processCpuMs(pid);
      const perElement = loaded ? ` (${Math.round((ms * 1000) / loaded.elements)} µs/element)` : "";
      return `${name} ${(ms / 1000).toFixed(1)} s${perElement}`;
    })
    .join(", ");
  const rate = loaded ? `${Math.round(loaded.elements / (loaded.ms / 1000)).toLocaleString("en")} elements/s` : "?";
  const rss = Object.entries(peak)
    .map(([name, mb]) => `${name} ${mb.toFixed(0)} MB`)
    .join(", ");
  console.log(
    `${label} → ${target}: ${rate} (${loaded ? `${loaded.elements.toLocaleString("en")} elements in ${(loaded.ms / 1000).toFixed(1)} s` : "no load line"}), ready after ${wallS.toFixed(1)} s; peak RSS ${rss}; CPU ${cpu}`,
  );
  return { proc: proc!, ...(port ? { port } : {}), pids };
}

/** GET /serialization as AASX into a file: time, size, peak RSS. */
async function exportAasx(port: number, pids: Record<string, number>, file: string): Promise<void> {
  const t0 = performance.now();
  const cpuBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuMs(pid)]));
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, rssMb(pid)]));
  const { result: status, peak } = await peakRss(
    () => pids,
    () =>
      new Promise<number>((resolve, reject) => {
        const out = createWriteStream(file);
        http
          .get(
            {
              host: "127.0.0.1",
              port,
              path: "/api/v3.0/serialization",
              headers: { accept: "application/asset-administration-shell-package+xml" },
            },
            (response) => {
              response.pipe(out);
              out.on("finish", () => resolve(response.statusCode ?? 0));
              response.on("error", reject);
            },
          )
          .on("error", reject);
      }),
  );
  const rss = Object.keys(pids)
    .map((name) => `${name} ${before[name]!.toFixed(0)} → ${peak[name]!.toFixed(0)} MB`)
    .join(", ");
  const cpu = Object.entries(pids)
    .map(([name, pid]) => `${name} ${((processCpuMs(pid) - cpuBefore[name]!) / 1000).toFixed(1)} s`)
    .join(", ");
  console.log(
    `export (b) as AASX: status ${status}, ${((performance.now() - t0) / 1000).toFixed(1)} s, ${(statSync(file).size / 1024 ** 2).toFixed(0)} MB; RSS ${rss}; CPU ${cpu}`,
  );
}

try {
  const b = join(dir, "b.json");
  const c = join(dir, "c.json");
  if (CASES.includes("b")) writeSubmodelsModelFile(b, SUBMODELS, ELEMENTS);
  if (CASES.includes("c")) writeManyShellsModelFile(c, SHELLS, SHELL_ELEMENTS);
  const labels: Record<string, string> = {
    b: `(b) ${SUBMODELS.toLocaleString("en")} submodels × ${ELEMENTS} Properties`,
    c: `(c) ${SHELLS.toLocaleString("en")} shells × 1 submodel × ${SHELL_ELEMENTS} Properties`,
  };
  const files: Record<string, string> = { b, c };
  for (const name of CASES) {
    const size = (statSync(files[name]!).size / 1024 ** 2).toFixed(0);
    for (const target of TARGETS) {
      const run = await seed(`${labels[name]} (${size} MB JSON)`, target, files[name]!);
      if (name === "b" && target === "memory" && EXPORT && run.port) {
        const aasx = join(dir, "b.aasx");
        await exportAasx(run.port, run.pids, aasx);
        await run.proc.stop();
        try {
          const again = await seed("(b) as our own AASX export, default limits", "memory", aasx);
          await again.proc.stop();
        } catch (error) {
          console.log(`(b) as our own AASX export: NOT importable: ${(error as Error).message.slice(0, 400)}`);
        }
      } else await run.proc.stop();
      while (stopping.length > 0) await stopping.pop()!.stop();
    }
  }
} finally {
  while (stopping.length > 0) await stopping.pop()!.stop();
  rmSync(dir, { recursive: true, force: true });
}
