/**
 * Which process held up a benchmark's slow samples: each sample's wall-clock window is laid over the
 * GC pauses and event-loop stalls every process recorded (loop-timeline.ts). A sample counts against
 * a process when that process stood still (a stall or a GC pause) for at least a third of the time
 * the sample spent above its expected duration; one that overlaps nothing points at CPU starvation
 * by other programs or at work that does not stop the loop (I/O, another thread). Bench-only.
 */
import type { TimelineEntry } from "./loop-timeline.ts";

export interface Sample {
  /** Wall clock (ms since the epoch) when the request was sent. */
  at: number;
  totalMs: number;
  /** When the answer came (the PATCH's own round trip). */
  answeredMs: number;
  /** When the node got its value (its source timestamp), ms after `at`. */
  appliedMs: number;
}

const clipped = (entry: TimelineEntry, from: number, to: number) =>
  Math.max(0, Math.min(to, entry.at + entry.ms) - Math.max(from, entry.at));

/** Per process: GC pauses by kind and loop stalls (count, total ms, max ms). */
export function timelineSummary(timelines: Map<string, TimelineEntry[]>): string[] {
  const lines: string[] = [];
  for (const [role, entries] of timelines) {
    const byWhat = new Map<string, { count: number; total: number; max: number }>();
    for (const entry of entries) {
      const sum = byWhat.get(entry.what) ?? { count: 0, total: 0, max: 0 };
      sum.count++;
      sum.total += entry.ms;
      sum.max = Math.max(sum.max, entry.ms);
      byWhat.set(entry.what, sum);
    }
    const parts = [...byWhat]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([what, s]) => `${what} ${s.count}× ${s.total.toFixed(0)} ms (max ${s.max.toFixed(1)})`);
    lines.push(`${role} timeline: ${parts.join(", ") || "no GC, no stall > 3 ms"}`);
  }
  return lines;
}

/** For the samples above `targetMs`: how many each process stood still during, and the worst few. */
export function slowSampleCauses(
  samples: Sample[],
  timelines: Map<string, TimelineEntry[]>,
  targetMs: number,
  typicalMs = median(samples.map((s) => s.totalMs)),
): string[] {
  const slow = samples.filter((s) => s.totalMs > targetMs).sort((a, b) => b.totalMs - a.totalMs);
  if (slow.length === 0) return [`no sample above ${targetMs} ms`];
  const blamed = new Map<string, number>();
  let unexplained = 0;
  const details: string[] = [];
  for (const sample of slow) {
    const from = sample.at;
    const to = sample.at + sample.totalMs;
    const excess = sample.totalMs - typicalMs;
    const parts: string[] = [];
    let any = false;
    for (const [role, entries] of timelines) {
      let stall = 0;
      let gc = 0;
      for (const entry of entries) {
        const ms = clipped(entry, from, to);
        if (ms === 0) continue;
        if (entry.what === "stall") stall += ms;
        else gc += ms;
      }
      const still = Math.max(stall, gc);
      if (still >= excess / 3) {
        blamed.set(role, (blamed.get(role) ?? 0) + 1);
        any = true;
      }
      if (still > 0) parts.push(`${role} still ${still.toFixed(1)} ms (GC ${gc.toFixed(1)})`);
    }
    if (!any) unexplained++;
    if (details.length < 5)
      details.push(
        `${sample.totalMs.toFixed(1)} ms (answered ${sample.answeredMs.toFixed(1)}, node set ${sample.appliedMs} ms): ` +
          (parts.join("; ") || "no process stood still"),
      );
  }
  const counts = [...blamed].map(([role, n]) => `${role} ${n}`).join(", ");
  return [
    `${slow.length} samples above ${targetMs} ms; a process stood still ≥ 1/3 of the excess in: ${counts || "none"}; ` +
      `in none: ${unexplained}`,
    ...details.map((d) => `  ${d}`),
  ];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
