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

export interface LoopStats {
  pid: number;
  /** The twinport role from the command line (embedded when none). */
  role: string;
  seconds: number;
  /** How late the loop ran a timer (the 10 ms resolution taken off). */
  loopDelayMs: { p50: number; p99: number; max: number };
  gc: { count: number; totalMs: number; maxMs: number; over2Ms: number };
}

export const RESOLUTION_MS = 10;
const dir = process.env.BENCH_LOOP_STATS_DIR;
if (dir) {
  const roles = ["model-store", "http-gateway", "opcua-gateway"];
  const role = process.argv.find((arg) => roles.includes(arg)) ?? "embedded";
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
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
