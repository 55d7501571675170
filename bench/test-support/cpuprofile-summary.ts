/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and prints where the time went: self time per function
 * and total (inclusive) time per function, top N each, as a share of the sampled time.
 *
 *   node --import tsx bench/test-support/cpuprofile-summary.ts <file.cpuprofile> [N=30] [filter]
 *
 * Environment: PROFILE_FROM_US / PROFILE_TO_US keep only the samples in that window (the monotonic
 * clock in µs, as process.hrtime.bigint() / 1000 reads it in any process of this machine: what
 * bench/asset-ingest.ts prints per step), and PROFILE_PER=N adds µs per unit (e.g. per committed
 * value) to every line.
 *
 * `filter` (a substring of a function's "name file:line") limits the inclusive list, e.g. "asset-connections".
 *
 * Then "by area": each sample goes to the innermost frame of our own code (its folder, e.g.
 * libs/shared/src/engine), else to the innermost npm package (e.g. nm/ioredis), else to V8's own
 * entries ((garbage collector), (idle), …). Node's internals (sockets, streams) count for whoever
 * called them, so a socket write made by ioredis is ioredis's. Async continuations start a new stack,
 * so a commit's reply handling counts for ioredis until it reaches our code again.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, topText, filter] = process.argv.slice(2);
const top = Number(topText ?? 30);
const profile = JSON.parse(readFileSync(file!, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const from = Number(process.env.PROFILE_FROM_US ?? -Infinity);
const to = Number(process.env.PROFILE_TO_US ?? Infinity);
const per = Number(process.env.PROFILE_PER ?? 0);
const selfUs = new Map<number, number>();
let at = profile.startTime;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  at += delta;
  if (at < from || at > to) return;
  selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
});
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

const label = (n: ProfileNode) => {
  const url = n.callFrame.url
    .replace(/^file:\/\//, "")
    .replace(/.*\/node_modules\//, "nm/")
    .replace(/.*\/wt-[^/]+\//, "");
  return `${n.callFrame.functionName || "(anonymous)"} ${url}:${n.callFrame.lineNumber + 1}`;
};

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  const node = byId.get(id)!;
  self.set(label(node), (self.get(label(node)) ?? 0) + us);
  // Each function counted once per sample even when it recurses.
  const seen = new Set<string>();
  for (let node: number | undefined = id; node !== undefined; node = parent.get(node)) {
    const l = label(byId.get(node)!);
    if (seen.has(l)) continue;
    seen.add(l);
    inclusive.set(l, (inclusive.get(l) ?? 0) + us);
  }
}

const print = (title: string, map: Map<string, number>, keep: (l: string) => boolean = () => true) => {
  console.log(`\n${title} (of ${(total / 1000).toFixed(0)} ms sampled)`);
  for (const [l, us] of [...map]
    .filter(([l]) => keep(l))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)) {
    const unit = per > 0 ? `${(us / per).toFixed(1).padStart(7)} µs/unit  ` : "";
    console.log(
      `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${unit}${l}`,
    );
  }
};
const area = (n: ProfileNode): string | undefined => {
  const url = n.callFrame.url.replace(/^file:\/\//, "");
  const ours =
    /\/wt-[^/]+\/((?:libs|services|bin)\/[^/]+\/src\/[^/]+)/.exec(url) ??
    /\/wt-[^/]+\/((?:libs|services|bin)\/[^/]+)/.exec(url);
  if (ours && !url.includes("/node_modules/")) return ours[1]!.replace(/\.ts$/, "");
  return undefined;
};
const library = (n: ProfileNode): string | undefined => {
  const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(n.callFrame.url);
  return m ? `nm/${m[1]}` : undefined;
};
const areas = new Map<string, number>();
for (const [id, us] of selfUs) {
  let found: string | undefined;
  let lib: string | undefined;
  for (let step: number | undefined = id; step !== undefined && found === undefined; step = parent.get(step)) {
    const node = byId.get(step)!;
    found = area(node);
    lib ??= library(node);
  }
  const leaf = byId.get(id)!.callFrame.functionName;
  const key = found ?? lib ?? (leaf.startsWith("(") ? leaf : "node internals");
  areas.set(key, (areas.get(key) ?? 0) + us);
}

print("self time", self);
print("by area", areas);
print("total time", inclusive, filter ? (l) => l.includes(filter) : undefined);
