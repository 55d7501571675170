/**
 * Preloaded into the server processes of a benchmark (NODE_OPTIONS="--import=<this file>", with
 * BENCH_LOOP_STATS_DIR set): records the event loop's delay and every GC pause, so a latency tail
 * can be told apart from a process that was not running its callbacks. SIGUSR2 writes what was
 * recorded since the last SIGUSR2 to `<dir>/<pid>.json` and starts over (bench/opcua-latency.ts
 * signals once before and once after each round). Bench-only: no production code imports it.
 */
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from "node:v8";
import { recordLoopTimeline, type TimelineEntry } from "./loop-timeline.ts";

export interface LoopStats {
  pid: number;
  /** The twinport role from the command line (embedded when none). */
  role: string;
  seconds: number;
  /** How late the loop ran a timer (the 10 ms resolution taken off). */
  loopDelayMs: { p50: number; p99: number; max: number };
  gc: { count: number; totalMs: number; maxMs: number; over2Ms: number };
  /** With BENCH_LOOP_TIMELINE=1: when each GC pause and loop stall happened (loop-timeline.ts). */
  timeline?: TimelineEntry[];
  /** The heap when written (MB): young generation capacity, old generation and total in use. */
  heapMb?: {
    newSpace: number;
    oldSpaceUsed: number;
    used: number;
    total: number;
    external: number;
    arrayBuffers: number;
  };
}

export const RESOLUTION_MS = 10;
const dir = process.env.BENCH_LOOP_STATS_DIR;
if (dir) {
  const roles = ["model-store", "http-gateway", "opcua-gateway"];
  const role = process.argv.find((arg) => roles.includes(arg)) ?? "embedded";
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  // Bench-only diagnosis, e.g. BENCH_V8_FLAGS="--trace-gc --trace-incremental-marking": V8's own lines on
  // the process's stdout (NODE_OPTIONS refuses V8's tracing flags).
  for (const flag of (process.env.BENCH_V8_FLAGS ?? "").split(" ").filter(Boolean)) setFlagsFromString(flag);
  const timeline = process.env.BENCH_LOOP_TIMELINE === "1" ? recordLoopTimeline() : undefined;
  let since = performance.now();
  let gc = { count: 0, totalMs: 0, maxMs: 0, over2Ms: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.count++;
      gc.totalMs += entry.duration;
      gc.maxMs = Math.max(gc.maxMs, entry.duration);
      if (entry.duration > 2) gc.over2Ms++;
    }
  }).observe({ entryTypes: ["gc"] });
  process.on("SIGUSR2", () => {
    // The histogram holds the time between two of its timer's runs: take the resolution off, leaving the stall.
    const ms = (ns: number) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 100) / 100);
    const stats: LoopStats = {
      pid: process.pid,
      role,
      seconds: (performance.now() - since) / 1000,
      loopDelayMs: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
      gc,
      ...(timeline ? { timeline: timeline.take() } : {}),
      heapMb: heapMb(),
    };
    // Written aside and renamed: the bench may look for the file while it is being written.
    const file = join(dir, `${process.pid}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(stats));
    renameSync(`${file}.tmp`, file);
    delay.reset();
    gc = { count: 0, totalMs: 0, maxMs: 0, over2Ms: 0 };
    since = performance.now();
  });
}

function heapMb(): LoopStats["heapMb"] {
  const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
  const spaces = getHeapSpaceStatistics();
  const space = (name: string) => spaces.find((s) => s.space_name === name);
  const heap = getHeapStatistics();
  return {
    newSpace: mb(space("new_space")?.space_size ?? 0),
    oldSpaceUsed: mb(space("old_space")?.space_used_size ?? 0),
    used: mb(heap.used_heap_size),
    total: mb(heap.total_heap_size),
    // Buffers live outside the heap but count towards V8's limit for starting a full GC.
    external: mb(process.memoryUsage().external),
    arrayBuffers: mb(process.memoryUsage().arrayBuffers),
  };
}
