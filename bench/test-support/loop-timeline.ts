/**
 * When each GC pause and each event-loop stall of a process happened (wall clock, ms since the epoch),
 * so a benchmark can tell which process held up a slow sample: a PATCH that took 30 ms while the
 * gateway's loop stood still for 25 ms of it is the gateway's, one that overlapped nothing of any
 * server process is the machine's (CPU starvation) or the client's. Bench-only.
 *
 * A stall is seen by a timer that asks to run every `TICK_MS` and measures how late it ran: a
 * lateness above `STALL_MS` is recorded with when it began. Cost: one timer callback per TICK_MS
 * (≈ 1–2 µs each, ≈ 0.05 % of a core at 5 ms).
 */
import { PerformanceObserver } from "node:perf_hooks";

export interface TimelineEntry {
  /** "gc:<kind>" (minor, major, incremental, weakcb) or "stall". */
  what: string;
  /** Wall clock (ms since the epoch, fractional) when it began. */
  at: number;
  ms: number;
}

const TICK_MS = 5;
const STALL_MS = 3;
/** Keeps the last entries only: a long run must not grow the bench's own heap. */
const MAX_ENTRIES = 20_000;
/** perf_hooks.constants.NODE_PERFORMANCE_GC_*. */
const GC_KINDS: Record<number, string> = { 1: "minor", 2: "minor-ms", 4: "major", 8: "incremental", 16: "weakcb" };

export interface LoopTimeline {
  /** The entries since the last call, oldest first; starts over. */
  take(): TimelineEntry[];
  stop(): void;
}

export function recordLoopTimeline(): LoopTimeline {
  let entries: TimelineEntry[] = [];
  const push = (entry: TimelineEntry) => {
    if (entries.length >= MAX_ENTRIES) entries.shift();
    entries.push(entry);
  };
  const origin = performance.timeOrigin;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail = (entry as { detail?: { kind?: number; flags?: number } }).detail;
      const kind = detail?.kind ?? 0;
      // Flag 4: forced (someone called gc() or V8 ran it for memory pressure from outside the heap).
      const forced = ((detail?.flags ?? 0) & 4) !== 0 ? "(forced)" : "";
      push({ what: `gc:${GC_KINDS[kind] ?? kind}${forced}`, at: origin + entry.startTime, ms: entry.duration });
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  let expected = performance.now() + TICK_MS;
  let timer: NodeJS.Timeout;
  const tick = () => {
    const now = performance.now();
    const late = now - expected;
    if (late > STALL_MS) push({ what: "stall", at: origin + expected, ms: late });
    expected = now + TICK_MS;
    timer = setTimeout(tick, TICK_MS);
    timer.unref();
  };
  timer = setTimeout(tick, TICK_MS);
  timer.unref();
  return {
    take() {
      const taken = entries;
      entries = [];
      return taken;
    },
    stop() {
      clearTimeout(timer);
      observer.disconnect();
    },
  };
}

/** The entries of `timeline` that overlap [from, to] (wall clock ms). */
export function overlapping(timeline: TimelineEntry[], from: number, to: number): TimelineEntry[] {
  return timeline.filter((entry) => entry.at < to && entry.at + entry.ms > from);
}
