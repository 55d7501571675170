/**
 * Embedded PATCH `$value` A/B (issue 12 item 1, embedded half; docs/adr/0046): the same wrk load on
 * bare Hono and on two or more embedded Twinport processes that differ in one thing (a checkout, V8
 * flags), measured in alternation within each round, so the ratio between them is taken in the
 * same minute of this shared, noisy machine. Beside every rate: CPU per request of the server
 * process split into user and system time, and its garbage collections per 1,000 requests and GC
 * pause per request (from `--trace-gc`, read from the process's stdout during the run).
 *
 * Variants (BENCH_EMBEDDED, a JSON array; default: this checkout once):
 *   [{"name":"before","root":"/tmp/checkout-at-main"},{"name":"after"},{"name":"semi 16 MB","nodeArgs":["--max-semi-space-size=16"]}]
 *   root: another checkout (its bin/twinport.js, its sources in source mode); nodeArgs: V8/Node flags;
 *   env: environment (e.g. {"TWINPORT_MESSAGEBUS_READCACHEMAXAGEMS":"0"});
 *   opcua: true serves an OPC UA endpoint beside HTTP, as `npm start` does (no `--endpoint http`):
 *   such a process keeps ADR 0043's heap settings and its address space follows every write.
 *
 * Run: npm run bench -- embedded-patch   (BENCH_SECONDS=4 BENCH_ROUNDS=3 BENCH_CONNECTIONS=16
 *   BENCH_KIND=one|spread)
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createHttpClient } from "../tests/test-support/http-client.ts";
import { startTwinport, type TwinportProcess } from "../tests/test-support/system.ts";
import { idleLine, loopbackOpcUaEndpoint, median, plainHttpConfig, startBareHono } from "./test-support/bench-setup.ts";
import { ONE_PATH, SPREAD_PATHS, writeWritePathModel } from "./test-support/write-path-model.ts";
import { runWrk } from "./test-support/wrk.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const kind = process.env.BENCH_KIND ?? "one";
interface VariantSpec {
  name: string;
  root?: string;
  nodeArgs?: string[];
  env?: Record<string, string>;
  opcua?: boolean;
}
const specs: VariantSpec[] = JSON.parse(process.env.BENCH_EMBEDDED ?? '[{"name":"embedded"}]');

const dir = mkdtempSync(join(tmpdir(), "twinport-bench-embedded-patch-"));
const modelFile = writeWritePathModel(dir);
const paths = kind === "spread" ? SPREAD_PATHS : [ONE_PATH];

/** User and system CPU milliseconds of a process so far (/proc/PID/stat utime, stime; USER_HZ 100). */
function cpuSplitMs(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

/** Scavenges, full GCs and their summed pauses in `--trace-gc` lines. */
function gcOf(text: string): { minor: number; major: number; pauseMs: number } {
  let minor = 0;
  let major = 0;
  let pauseMs = 0;
  for (const line of text.split("\n")) {
    // e.g. "… Scavenge 48.1 (65.4) -> 44.5 (65.4) MB, pooled: 0 MB, 0.61 / 0.00 ms …"
    const pause = /MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/.exec(line);
    if (!pause) continue;
    if (line.includes("Scavenge") || line.includes("Minor Mark")) minor++;
    else if (line.includes("Mark-Compact")) major++;
    else continue;
    pauseMs += Number(pause[1]);
  }
  return { minor, major, pauseMs };
}

interface Measured {
  rate: number;
  userUs: number;
  systemUs: number;
  minorPer1k: number;
  majorPer1k: number;
  gcPauseUs: number;
  errors: number;
}

interface Variant {
  name: string;
  base: string;
  pid: number;
  stdout?: string;
}

async function measure(variant: Variant, warmUp = false): Promise<Measured> {
  const offset = variant.stdout ? statSync(variant.stdout).size : 0;
  const before = cpuSplitMs(variant.pid);
  const r = await runWrk(
    { base: variant.base, paths, method: "PATCH", seconds: warmUp ? 1 : seconds, connections, dir },
    {},
  );
  const after = cpuSplitMs(variant.pid);
  const per = (ms: number) => (ms * 1000) / Math.max(r.requests, 1);
  const gc = variant.stdout
    ? gcOf(readFileSync(variant.stdout, "utf8").slice(offset))
    : { minor: 0, major: 0, pauseMs: 0 };
  return {
    rate: r.rate,
    userUs: per(after.user - before.user),
    systemUs: per(after.system - before.system),
    minorPer1k: (gc.minor * 1000) / Math.max(r.requests, 1),
    majorPer1k: (gc.major * 1000) / Math.max(r.requests, 1),
    gcPauseUs: per(gc.pauseMs),
    errors: r.errors,
  };
}

const processes: TwinportProcess[] = [];
const servers: { stop(): Promise<void> }[] = [];
try {
  const variants: Variant[] = [];
  for (const spec of specs) {
    const http = await plainHttpConfig(dir, {}, spec.opcua ? [await loopbackOpcUaEndpoint()] : []);
    const cwd = mkdtempSync(join(dir, "embedded-"));
    const p = await startTwinport({
      cwd,
      args: ["-c", http.file, "-m", modelFile, ...(spec.opcua ? [] : ["--endpoint", "http"])],
      nodeArgs: ["--trace-gc", ...(spec.nodeArgs ?? [])],
      ...(spec.env ? { env: spec.env } : {}),
      ...(spec.root ? { launcher: join(spec.root, "bin/twinport.js") } : {}),
    });
    processes.push(p);
    variants.push({
      name: spec.name,
      base: `http://127.0.0.1:${http.port}/api/v3.0`,
      pid: p.child.pid!,
      stdout: join(cwd, "embedded.out"),
    });
  }
  const client = createHttpClient(variants[0]!.base);
  const valueBody = (await client.get(paths[0]!)).text;
  client.close();
  const bare = await startBareHono(dir, valueBody, valueBody);
  servers.push(bare);
  const all: Variant[] = [{ name: "bare hono", base: bare.base, pid: bare.pid }, ...variants];
  console.log(
    `embedded-patch: PATCH $value (${kind === "spread" ? "100 elements in 10 submodels" : "one element"}), wrk -t1 -c${connections} -d${seconds}s, ${rounds} rounds; load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}; ${idleLine()}`,
  );
  // Each variant warmed (compiled) before round 1, as in bench/write-path.ts.
  for (const variant of all) await measure(variant, true);
  const results = new Map<string, Measured[]>(all.map((v) => [v.name, []]));
  for (let round = 1; round <= rounds; round++) {
    // Alternate the order each round: a variant is not always the one measured after bare hono.
    const order = round % 2 === 1 ? all : [all[0]!, ...all.slice(1).reverse()];
    for (const variant of order) {
      const m = await measure(variant);
      results.get(variant.name)!.push(m);
      console.log(
        `round ${round} ${variant.name.padEnd(24)} ${String(Math.round(m.rate)).padStart(6)} req/s  CPU/request user ${m.userUs.toFixed(1)} µs, system ${m.systemUs.toFixed(1)} µs` +
          (variant.stdout
            ? `; GC per 1,000 requests: ${m.minorPer1k.toFixed(1)} minor, ${m.majorPer1k.toFixed(2)} full; GC pause ${m.gcPauseUs.toFixed(1)} µs/request`
            : "") +
          (m.errors ? `  ${m.errors} ERRORS: not valid` : ""),
      );
    }
  }
  const bareRuns = results.get("bare hono")!;
  console.log(`\nmedian of ${rounds} rounds; ratios to bare hono taken per round (target ≥ 0.6× embedded):`);
  for (const variant of all) {
    const runs = results.get(variant.name)!;
    const ratio = median(runs.map((m, i) => m.rate / bareRuns[i]!.rate));
    const cpu = median(runs.map((m) => m.userUs + m.systemUs));
    console.log(
      `  ${variant.name.padEnd(24)} ${ratio.toFixed(2)}×  ${String(Math.round(median(runs.map((m) => m.rate)))).padStart(6)} req/s  CPU ${cpu.toFixed(1)} µs/request (user ${median(runs.map((m) => m.userUs)).toFixed(1)}, system ${median(runs.map((m) => m.systemUs)).toFixed(1)})` +
        (variant.stdout ? `, GC pause ${median(runs.map((m) => m.gcPauseUs)).toFixed(1)} µs/request` : ""),
    );
  }
} finally {
  for (const p of processes.reverse()) await p.stop();
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
}
