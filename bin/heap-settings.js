// V8 heap settings the twinport processes serving OPC UA (embedded, opcua-gateway) start with (docs/adr/0043-heap-settings-for-the-write-tail.md).
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
// Only for the roles serving OPC UA (embedded, opcua-gateway); the model-store and http-gateway keep
// V8's defaults (see ROLES_BUILDING_AN_ADDRESS_SPACE), and so does an embedded process without an
// OPC UA endpoint once it has started (servesNoOpcUa, docs/adr/0046).
//
// - The young generation stays at its initial 1 MB semi-spaces while the role starts
//   (`--semi-space-growth-factor=1`); once it is ready it may grow as V8 grows it (factor 2) under
//   a load that keeps much alive, but only up to YOUNG_CAP_BYTES (4 MB semi-spaces): after each
//   scavenge the factor goes to 1 once the young generation has reached the cap, back to 2 while it
//   is below. `--max-semi-space-size` would say that, but V8 reads it only from the command line,
//   which `npx twinport` or a plain `node bin/twinport.js` does not carry; and during the start-up
//   build, which runs long stretches without yielding, the check would come too late.
// - `--heap-growing-percent=100`: after a full GC the old generation may grow by as much as
//   survived before the next one is due, instead of the ~10 % V8 picks for a slow allocator. (50 was
//   enough for processes run through tsx, whose heap is larger; the compiled ones, what production
//   runs, kept a smaller heap and ran a full GC every few hundred PATCHes again: ADR 0043's amendment.)
//
// An operator who sets V8 heap sizing flags on the command line or in NODE_OPTIONS (e.g.
// `--max-semi-space-size=16` for a throughput-bound gateway) keeps exactly those: none of ours is set.
import { PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";

/** Young generation (both semi-spaces) at most this big: 2 × 4 MB. */
export const YOUNG_CAP_BYTES = 8 * 2 ** 20;
export const HEAP_FLAGS = ["--heap-growing-percent=100"];
/** Flags that say the operator sizes the heap's generations themselves. */
const OPERATOR_FLAGS = /--(max-|min-)?semi-space|--heap-growing-percent|--semi-space-growth-factor/;
/** perf_hooks.constants.NODE_PERFORMANCE_GC_MINOR: a scavenge. */
const GC_MINOR = 1;

let growing = true;
/** Lets the young generation grow (V8's factor 2) while below the cap, and no further once there. */
function capYoungGeneration() {
  const young = getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0;
  const shouldGrow = young < YOUNG_CAP_BYTES;
  if (shouldGrow === growing) return;
  growing = shouldGrow;
  setFlagsFromString(`--semi-space-growth-factor=${shouldGrow ? 2 : 1}`);
}

let applied = false;
let capping = false;

/**
 * The roles that serve OPC UA: they build an address space at start (long synchronous stretches,
 * where the cap, checked after each scavenge, would come too late) and then keep it, the heap shape
 * behind the tail. The model-store and the http-gateway ran 0–1 full GCs a round with V8's defaults
 * and keep them: with the cap the model-store seeded model (c) at 68 instead of 27 µs of CPU per
 * element (`npm run bench -- seed-scale`, 100,000 shells, one run each on a quiet machine).
 */
const ROLES_BUILDING_AN_ADDRESS_SPACE = new Set(["embedded", "opcua-gateway"]);

/** The role of `twinport <role> …` (the launcher's own rule: a first argument naming a role, else embedded). */
export function roleOfArguments(argv = process.argv.slice(2)) {
  return ["model-store", "http-gateway", "opcua-gateway"].includes(argv[0]) ? argv[0] : "embedded";
}

export function applyHeapSettings(
  execArgv = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? "",
  role = roleOfArguments(),
) {
  if (!ROLES_BUILDING_AN_ADDRESS_SPACE.has(role)) return false;
  if (execArgv.some((arg) => OPERATOR_FLAGS.test(arg)) || OPERATOR_FLAGS.test(nodeOptions)) return false;
  for (const flag of HEAP_FLAGS) setFlagsFromString(flag);
  setFlagsFromString("--semi-space-growth-factor=1");
  growing = false;
  applied = true;
  return true;
}

/**
 * The role turned out to serve no OPC UA (embedded with HTTP endpoints only; bin/cli.ts calls this
 * once it started): it keeps no address space, so none of ADR 0043's reasons holds, and from now on
 * V8 sizes its heap as it does the model-store's and the http-gateway's (docs/adr/0046). With the cap
 * such a process scavenged every ~140 PATCHes under load and spent ~10 µs more CPU per PATCH.
 */
export function servesNoOpcUa() {
  if (!applied) return;
  applied = false;
  // V8's own values: growth factor 2, heap growing percent 0 (= its dynamic growing factor).
  setFlagsFromString("--semi-space-growth-factor=2");
  setFlagsFromString("--heap-growing-percent=0");
  growing = true;
}

/** The role is ready (bin/twinport.js calls this): the young generation may grow up to the cap. */
export function startUpDone() {
  if (!applied || capping) return;
  capping = true;
  capYoungGeneration();
  new PerformanceObserver((list) => {
    // V8 decides to grow during a scavenge: the check after one sets the factor for the next.
    if (list.getEntries().some((entry) => entry.detail?.kind === GC_MINOR)) capYoungGeneration();
  }).observe({ entryTypes: ["gc"] });
}

applyHeapSettings();
