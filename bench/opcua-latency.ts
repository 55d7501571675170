/**
 * Issues 5, 12 and 14 benchmark: latency from an HTTP `PATCH …/$value` to the OPC UA data-change
 * notification of a subscriber, in embedded mode and in distributed mode (redis, nats, model-store,
 * http-gateway, opcua-gateway as real processes). One PATCH at a time; the clock runs from sending
 * the request to receiving the notification with the new value.
 *
 * Subscribers come in several variants, each its own subscription on its own node:
 * - sampling 0, publishing 5 ms: a client that asks for changes as they happen;
 * - sampling = publishing (5, 100, 1000 ms): what common clients ask for (many take the publishing
 *   interval as their default sampling interval). A server that samples on a timer adds up to one
 *   sampling interval; one that reports on change adds nothing. Any client still waits for its own
 *   publishing cycle (OPC UA sends notifications once per publishing interval): each PATCH starts
 *   at a random point of the server's cycles, so a publishing interval of P ms adds 0…P ms (p50 ≈ P/2).
 * Targets (issue 12): p99 ≤ 10 ms embedded, ≤ 15 ms distributed.
 *
 * Where the time goes, per round (same samples): the PATCH's own answer (HTTP → commit → reply;
 * distributed: Redis as shipped, AOF with appendfsync always), when the gateway set the node (its
 * source timestamp), from there to the notification (node-opcua's publish path and the client),
 * the event loop delay and GC pauses of every server process and of this one (the OPC UA client),
 * and how many PublishRequests the client had queued. After the distributed rounds, redis-benchmark
 * measures a SET with appendfsync always on this disk: the part of a write's tail that is the disk.
 *
 * Run: npm run bench -- opcua-latency
 *   options: BENCH_SAMPLES=500 (the slower variants take a share of it) BENCH_ROUNDS=3
 *            BENCH_MODES=embedded,distributed BENCH_VARIANTS=0/5,5/5,100/100,100/100i,1000/1000 (sampling/publishing ms;
 *            a trailing "i": each write comes 1–2 publishing intervals after the last notification, so the
 *            subscription is idle and publishes the change at once, ADR 0028)
 *            BENCH_REDIS_AOF=0 (Redis without persistence) BENCH_LOOP_STATS=0 (no event loop / GC recording)
 *            BENCH_HEAP_DEFAULTS=1 (the servers run with V8's own heap sizing instead of ADR 0043's:
 *            NODE_OPTIONS gets --max-semi-space-size=64, V8's default here, which bin/heap-settings.js leaves alone)
 *            BENCH_LOOP_TIMELINE=1 (every process also records when each GC pause and loop stall happened:
 *            the round prints GCs by kind and, for the samples above the target, which process stood still
 *            during them — bench/test-support/slow-samples.ts)
 */
// This process (the HTTP and OPC UA clients) gets the heap settings every twinport process has
// (ADR 0043), so its own full GCs do not stand in for the servers' in the tail. They must come before
// node-opcua and the test support load (parsing them grows the young generation), hence the dynamic
// imports below.
import "../bin/heap-settings.js";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";

import type { ValueMonitor } from "../tests/test-support/opcua-client.ts";
import type { Mode } from "../tests/test-support/system.ts";
import { type LoopStats, RESOLUTION_MS } from "./test-support/loop-stats.ts";
import { recordLoopTimeline, type TimelineEntry } from "./test-support/loop-timeline.ts";
import { processCpuMs } from "./test-support/process-cpu.ts";
import { type Sample, slowSampleCauses, timelineSummary } from "./test-support/slow-samples.ts";

const { startOpcuaSystem } = await import("../tests/opcua/opcua-system.ts");
const { b64 } = await import("../tests/test-support/http-client.ts");
const { elementNode } = await import("../tests/test-support/opcua-model.ts");
const { startRedis } = await import("../tests/test-support/servers.ts");

const samples = Number(process.env.BENCH_SAMPLES ?? 500);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const modes = (process.env.BENCH_MODES ?? "embedded,distributed").split(",") as Mode[];
const TARGET_P99_MS: Record<Mode, number> = { embedded: 10, distributed: 15 };
const redisAof = process.env.BENCH_REDIS_AOF !== "0";
const loopStats = process.env.BENCH_LOOP_STATS !== "0";
const loopTimeline = loopStats && process.env.BENCH_LOOP_TIMELINE === "1";

interface Variant {
  samplingInterval: number;
  publishingInterval: number;
  /** Writes come after a whole publishing interval without a message (ADR 0028's immediate publish). */
  idle: boolean;
  /** Samples per round: a slow publishing cycle makes each sample cost up to a second. */
  samples: number;
  warmUp: number;
}
const variants: Variant[] = (process.env.BENCH_VARIANTS ?? "0/5,5/5,100/100,100/100i,1000/1000")
  .split(",")
  .map((text) => {
    const idle = text.endsWith("i");
    const [samplingInterval, publishingInterval] = text.replace(/i$/, "").split("/").map(Number) as [number, number];
    const share = publishingInterval >= 1000 ? 0.1 : publishingInterval >= 100 ? (idle ? 0.2 : 0.4) : 1;
    const count = Math.max(10, Math.round(samples * share));
    return { samplingInterval, publishingInterval, idle, samples: count, warmUp: Math.min(20, Math.ceil(count / 10)) };
  });
const nameOf = (variant: Variant) =>
  (variant.samplingInterval === variant.publishingInterval
    ? `sampling = publishing ${variant.publishingInterval} ms`
    : `sampling ${variant.samplingInterval}, publishing ${variant.publishingInterval} ms`) +
  (variant.idle ? ", idle" : "");

const SUBMODEL = "urn:bench:opcua:latency";
const model = {
  submodels: [
    {
      modelType: "Submodel",
      id: SUBMODEL,
      idShort: "Latency",
      submodelElements: Array.from({ length: 100 }, (_, i) => ({
        modelType: "Property",
        idShort: `P${i}`,
        valueType: "xs:int",
        value: "0",
      })),
    },
  ],
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Event loop delay and GC pauses: the server processes record them through bench/test-support/loop-stats.ts
 * (preloaded through NODE_OPTIONS, which they inherit) and write them on SIGUSR2; this process, the
 * OPC UA and HTTP client, records its own.
 */
const statsDir = loopStats ? mkdtempSync(join(tmpdir(), "twinport-bench-loop-stats-")) : undefined;
if (statsDir) {
  process.env.BENCH_LOOP_STATS_DIR = statsDir;
  const preload = new URL("./test-support/loop-stats.ts", import.meta.url).href;
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} --import=${preload}`.trim();
}
if (process.env.BENCH_HEAP_DEFAULTS === "1")
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} --max-semi-space-size=64`.trim();
const ownDelay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
const ownTimeline = loopTimeline ? recordLoopTimeline() : undefined;
let ownGc = { count: 0, totalMs: 0, maxMs: 0, over2Ms: 0 };
if (loopStats) {
  ownDelay.enable();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      ownGc.count++;
      ownGc.totalMs += entry.duration;
      ownGc.maxMs = Math.max(ownGc.maxMs, entry.duration);
      if (entry.duration > 2) ownGc.over2Ms++;
    }
  }).observe({ entryTypes: ["gc"] });
}
/** The twinport processes this bench started (direct children running bin/twinport.js). */
function serverPids(): number[] {
  const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "utf8").trim().split(/\s+/);
  return children
    .filter(Boolean)
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("twinport.js");
      } catch {
        return false;
      }
    });
}
/** CPU ms used so far by each twinport process (by role) and by this one (the clients). */
function cpuByRole(): Record<string, number> {
  const own = process.cpuUsage();
  const cpu: Record<string, number> = { "bench client": (own.user + own.system) / 1000 };
  for (const pid of serverPids()) {
    const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    const role = args.find((arg) => ["model-store", "http-gateway", "opcua-gateway"].includes(arg)) ?? "embedded";
    cpu[role] = processCpuMs(pid);
  }
  return cpu;
}
function startLoopStats(): void {
  if (!statsDir) return;
  for (const pid of serverPids()) process.kill(pid, "SIGUSR2");
  ownDelay.reset();
  ownTimeline?.take();
  ownGc = { count: 0, totalMs: 0, maxMs: 0, over2Ms: 0 };
}
async function collectLoopStats(): Promise<LoopStats[]> {
  if (!statsDir) return [];
  for (const file of readdirSync(statsDir)) rmSync(join(statsDir, file));
  const pids = serverPids();
  for (const pid of pids) process.kill(pid, "SIGUSR2");
  const ms = (ns: number) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 100) / 100);
  const all: LoopStats[] = [
    {
      pid: process.pid,
      role: "bench client",
      seconds: 0,
      loopDelayMs: { p50: ms(ownDelay.percentile(50)), p99: ms(ownDelay.percentile(99)), max: ms(ownDelay.max) },
      gc: ownGc,
      ...(ownTimeline ? { timeline: ownTimeline.take() } : {}),
    },
  ];
  const written = () => readdirSync(statsDir).filter((file) => file.endsWith(".json"));
  for (let tries = 0; tries < 100 && written().length < pids.length; tries++) await pause(20);
  for (const file of written()) all.push(JSON.parse(readFileSync(join(statsDir, file), "utf8")) as LoopStats);
  return all;
}
function loopStatsLine(all: LoopStats[]): string {
  return all
    .map(
      (s) =>
        `${s.role}: event loop late p99 ${s.loopDelayMs.p99} ms, max ${s.loopDelayMs.max} ms; ` +
        `GC ${s.gc.count} pauses, ${s.gc.totalMs.toFixed(0)} ms, max ${s.gc.maxMs.toFixed(1)} ms, ${s.gc.over2Ms} > 2 ms`,
    )
    .join("\n            ");
}

console.log(
  `heap settings of the servers: ${process.env.BENCH_HEAP_DEFAULTS === "1" ? "V8 defaults (BENCH_HEAP_DEFAULTS=1)" : "as shipped (bin/heap-settings.js, ADR 0043)"}`,
);
for (const mode of modes) {
  const system = await startOpcuaSystem(mode, { model, ...(redisAof ? { redis: { appendOnly: true } } : {}) });
  try {
    const [opcua] = system.opcua;
    // One node per variant (P50, P51, …), so a PATCH notifies only the subscription being measured.
    const monitors: ValueMonitor[] = [];
    for (const [index, variant] of variants.entries()) {
      const monitor = await opcua.monitor(elementNode(SUBMODEL, `P${50 + index}`, "Value"), {
        samplingInterval: variant.samplingInterval,
        publishingInterval: variant.publishingInterval,
      });
      await monitor.waitFor(() => true, 5000, "the initial value");
      monitors.push(monitor);
      console.log(
        `${mode.padEnd(11)} ${nameOf(variant)}: revised publishing ${monitor.revised.publishingInterval} ms, ` +
          `sampling ${monitor.revised.samplingInterval} ms, queue ${monitor.revised.queueSize}; ${variant.samples} samples a round`,
      );
    }
    if (mode === "distributed")
      console.log(`distributed redis-server: ${redisAof ? "AOF, appendfsync always (as shipped)" : "no persistence"}`);
    const publishEngine = (
      opcua.session as unknown as { getPublishEngine(): { nbPendingPublishRequests: number } }
    ).getPublishEngine();
    const roundP99s: number[][] = variants.map(() => []);
    for (let round = 1; round <= rounds; round++) {
      for (const [index, variant] of variants.entries()) {
        const monitor = monitors[index]!;
        const url = `/submodels/${b64(SUBMODEL)}/submodel-elements/P${50 + index}/$value`;
        const latencies: number[] = [];
        const answers: number[] = [];
        const applied: number[] = [];
        /** From the node's update to the notification's arrival (ms, the source timestamp has 1 ms resolution). */
        const published: number[] = [];
        const queuedPublishRequests: number[] = [];
        /** Wall clock of each measured sample, for telling which process held up the slow ones. */
        const timed: Sample[] = [];
        startLoopStats();
        const cpuBefore = cpuByRole();
        for (let i = 1; i <= variant.samples + variant.warmUp; i++) {
          // A write comes at any point of the server's cycles (publishing, and sampling where it samples
          // on a timer), not right after the notification of the previous one.
          // Idle: a whole publishing interval without a message first, then a random point of the next.
          const cycle = Math.max(variant.publishingInterval, monitor.revised.samplingInterval);
          await pause((variant.idle ? cycle : 0) + Math.random() * cycle);
          const value = round * 100_000 + i;
          queuedPublishRequests.push(publishEngine.nbPendingPublishRequests);
          const startedAt = Date.now();
          const started = performance.now();
          const startedWall = performance.timeOrigin + started;
          const received = monitor.waitFor((v) => v.value.value === value, 10_000, `value ${value}`);
          const response = await system.http.request("PATCH", url, { body: String(value) });
          const answered = performance.now() - started;
          if (response.status !== 204) throw new Error(`PATCH answered ${response.status}: ${response.text}`);
          const notification = await received;
          const notifiedAt = Date.now();
          // The first ones of a round warm up the JIT, connections and caches.
          if (i > variant.warmUp) {
            latencies.push(performance.now() - started);
            answers.push(answered);
            // The gateway stamps the node when it applies the event (same machine, same clock; ms).
            const appliedAt = notification.sourceTimestamp?.getTime() ?? Number.NaN;
            applied.push(appliedAt - startedAt);
            published.push(notifiedAt - appliedAt);
            timed.push({
              at: startedWall,
              answeredMs: answered,
              totalMs: performance.now() - started,
              appliedMs: appliedAt - startedAt,
            });
          }
        }
        const cpuAfter = cpuByRole();
        monitor.values.length = 0;
        latencies.sort((a, b) => a - b);
        answers.sort((a, b) => a - b);
        applied.sort((a, b) => a - b);
        published.sort((a, b) => a - b);
        queuedPublishRequests.sort((a, b) => a - b);
        const mean = latencies.reduce((sum, v) => sum + v, 0) / latencies.length;
        const p99 = percentile(latencies, 99);
        roundP99s[index]!.push(p99);
        console.log(
          `${mode.padEnd(11)} round ${round}, ${nameOf(variant)}: HTTP PATCH $value → OPC UA notification, ${latencies.length} samples: ` +
            `p50 ${percentile(latencies, 50).toFixed(1)} ms, p90 ${percentile(latencies, 90).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, ` +
            `max ${latencies.at(-1)!.toFixed(1)} ms, mean ${mean.toFixed(1)} ms`,
        );
        // For reading the figure above, same samples: the PATCH's own HTTP round trip (the commit path),
        // and when the gateway applied the event to the node (its source timestamp, 1 ms resolution).
        console.log(
          `${"".padEnd(11)} PATCH answered: p50 ${percentile(answers, 50).toFixed(1)} ms, p99 ${percentile(answers, 99).toFixed(1)} ms; ` +
            `node updated in the gateway: p50 ${percentile(applied, 50).toFixed(0)} ms, p99 ${percentile(applied, 99).toFixed(0)} ms; ` +
            `node updated → notification received: p50 ${percentile(published, 50).toFixed(0)} ms, p99 ${percentile(published, 99).toFixed(0)} ms; ` +
            `PublishRequests queued by the client: min ${queuedPublishRequests[0]}, p50 ${percentile(queuedPublishRequests, 50)}`,
        );
        // Every sample's own CPU, warm-up included (the idle publishing and keep-alive work of the
        // other subscriptions in the meantime too): what one PATCH at a time costs each process.
        const count = variant.samples + variant.warmUp;
        console.log(
          `${"".padEnd(11)} CPU per PATCH: ${Object.entries(cpuAfter)
            .map(([role, ms]) => `${role} ${Math.round(((ms - (cpuBefore[role] ?? ms)) * 1000) / count)} µs`)
            .join(", ")}`,
        );
        if (statsDir) {
          const stats = await collectLoopStats();
          console.log(`${"".padEnd(11)} ${loopStatsLine(stats)}`);
          if (loopTimeline) {
            const timelines = new Map<string, TimelineEntry[]>(stats.map((s) => [s.role, s.timeline ?? []]));
            console.log(`${"".padEnd(11)} ${timelineSummary(timelines).join(`\n${"".padEnd(12)}`)}`);
            console.log(
              `${"".padEnd(11)} ${slowSampleCauses(timed, timelines, TARGET_P99_MS[mode]).join(`\n${"".padEnd(12)}`)}`,
            );
          }
        }
      }
    }
    for (const monitor of monitors) await monitor.stop();
    // This machine's speed drifts within minutes: each round is its own p99; the median is the figure.
    const target = TARGET_P99_MS[mode];
    for (const [index, variant] of variants.entries()) {
      const p99s = roundP99s[index]!;
      const medianP99 = [...p99s].sort((a, b) => a - b)[Math.floor(p99s.length / 2)]!;
      const verdict =
        medianP99 <= target
          ? `(≤ ${target} ms: ok)`
          : variant.publishingInterval > target && !variant.idle
            ? `(> ${target} ms: its ${variant.publishingInterval} ms publishing cycle alone exceeds the target)`
            : `(> ${target} ms: misses the target)`;
      console.log(
        `${mode.padEnd(11)} ${nameOf(variant)}: p99 per round ${p99s.map((p) => p.toFixed(1)).join(" / ")} ms, median ${medianP99.toFixed(1)} ms ${verdict}`,
      );
    }
  } finally {
    await system.stop();
  }
  if (mode === "distributed" && redisAof) await redisFsyncProbe();
}
if (statsDir) rmSync(statsDir, { recursive: true, force: true });

/**
 * The disk's part: one client writing one SET at a time to a redis-server with appendfsync always
 * (as shipped; same disk as the system's), as the bench's PATCHes come one at a time. redis-benchmark
 * prints its latency summary in ms.
 */
async function redisFsyncProbe(): Promise<void> {
  const redis = await startRedis({ appendOnly: true });
  try {
    const out = execFileSync(
      "redis-benchmark",
      ["-h", "127.0.0.1", "-p", String(redis.port), "-c", "1", "-n", "3000", "-t", "set", "-d", "200"],
      { encoding: "utf8" },
    );
    const lines = out.split("\n");
    const header = lines.findIndex((line) => line.includes("latency summary"));
    const [names, values] = [lines[header + 1], lines[header + 2]].map((line) => line?.trim().split(/\s+/) ?? []);
    const summary = names!.map((name, i) => `${name} ${values![i]}`).join(", ");
    console.log(
      `redis-server alone, AOF appendfsync always, one SET at a time (redis-benchmark -c 1 -n 3000): ${summary} ms`,
    );
  } catch (error) {
    console.log(`redis-benchmark failed: ${(error as Error).message}`);
  } finally {
    await redis.stop();
  }
}
