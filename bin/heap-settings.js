// V8 heap settings every twinport process starts with (docs/adr/0043-heap-settings-for-the-write-tail.md).
// Imported first by bin/twinport.js, before any role allocates, so they hold for the whole process.
//
// Why: a twinport process keeps a large heap that lives long (the OPC UA address space, the models)
// and then allocates little per request. V8's defaults fit that badly. The start-up build lets the
// young generation grow to its maximum (2 × 64 MB semi-spaces), and V8 starts a full, incremental
// mark-compact whenever the old generation's headroom (its limit minus its size) is smaller than the
// young generation; for a process allocating slowly V8 keeps that headroom at about 10 % of the heap.
// So with a 90 MB heap the headroom never exceeded the young generation and a full GC of the whole
// heap ran every ~30 PATCHes (every 0.5–1 s at one PATCH at a time), each with a final pause of
// 6–40 ms: the p99 of "one PATCH at a time" (ADR 0043 has the measurements).
//
// - `--semi-space-growth-factor=1`: the young generation keeps its initial size (1 MB semi-spaces):
//   scavenges come more often but each copies only what a few requests keep alive.
// - `--heap-growing-percent=50`: after a full GC the old generation may grow by half of what
//   survived before the next one is due, instead of the ~10 % V8 picks for a slow allocator.
//
// An operator who sets V8 heap sizing flags on the command line or in NODE_OPTIONS (e.g.
// `--max-semi-space-size=16` for a throughput-bound gateway) keeps exactly those: none of ours is set.
import { setFlagsFromString } from "node:v8";

export const HEAP_FLAGS = ["--semi-space-growth-factor=1", "--heap-growing-percent=50"];
/** Flags that say the operator sizes the heap's generations themselves. */
const OPERATOR_FLAGS = /--(max-|min-)?semi-space|--heap-growing-percent|--semi-space-growth-factor/;

export function applyHeapSettings(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? "") {
  if (execArgv.some((arg) => OPERATOR_FLAGS.test(arg)) || OPERATOR_FLAGS.test(nodeOptions)) return false;
  for (const flag of HEAP_FLAGS) setFlagsFromString(flag);
  return true;
}

applyHeapSettings();
