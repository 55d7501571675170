/**
 * Issue 12 benchmark: the write path (and the GET $value read path) against a bare Hono handler,
 * driven by wrk, with CPU per request per process printed beside every rate.
 *
 * Variants: bare hono (a handler answering the same bytes, or reading the JSON body and answering
 * 204), Twinport embedded, Twinport distributed (redis-server with AOF and `appendfsync always` as
 * docker-compose.yml ships it, nats-server, model-store, http-gateway), the same gateway with its
 * read cache off, and distributed with a second model-store replica started beside the first (the
 * CPU split between the two shows that writes to different submodels are served by both).
 * Plain HTTP everywhere, so TLS cost does not blur the comparison. Ratios are taken within each
 * round (this machine's speed drifts) and their median over the rounds is reported.
 *
 * With BENCH_RULES=1 one more variant, "embedded with rules": embedded with a security section (52 rules; the anonymous
 * caller's READ and UPDATE granted by an id pattern), so every request is checked (ADR 0024).
 *
 * Run: npm run bench -- write-path    (BENCH_SECONDS=3 BENCH_ROUNDS=3 BENCH_CONNECTIONS=16; BENCH_ONLY=PATCH
 * keeps the kinds whose name holds it, BENCH_VARIANTS=distributed the variants so named, BENCH_REPLICAS=1
 * skips the second model-store)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { b64, createHttpClient } from "../tests/test-support/http-client.ts";
import { startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport, type TwinportProcess } from "../tests/test-support/system.ts";
import { idleLine, median, plainHttpConfig, startBareHono } from "./test-support/bench-setup.ts";
import { LARGE, ONE_PATH, SPREAD_PATHS, writeWritePathModel } from "./test-support/write-path-model.ts";
import { cpuPerRequest, runWrk, type WrkResult } from "./test-support/wrk.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const only = process.env.BENCH_ONLY?.split(",");
/** Variants to measure besides bare hono (by name, e.g. "distributed"); default all. */
const onlyVariants = process.env.BENCH_VARIANTS?.split(",");

const dir = mkdtempSync(join(tmpdir(), "twinport-bench-write-"));
const modelFile = writeWritePathModel(dir);
const onePath = ONE_PATH;
const spreadPaths = SPREAD_PATHS;

interface Kind {
  name: string;
  paths: string[];
  method: "GET" | "PATCH";
  /** Variants this kind is measured on (by name); default all. */
  variants?: string[];
  target?: string;
}

const KINDS: Kind[] = [
  { name: "GET $value", paths: [onePath], method: "GET", target: "≥ 0.7× embedded and distributed" },
  {
    name: "GET submodel (1,000 elements)",
    paths: [`/submodels/${b64(LARGE)}`],
    method: "GET",
    variants: ["bare hono", "embedded", "distributed", "distributed, read cache off"],
    target: "≥ 0.3× with the read cache off",
  },
  {
    name: "PATCH $value, one element",
    paths: [onePath],
    method: "PATCH",
    target: "≥ 0.25× distributed, ≥ 0.6× embedded; ≤ 400 µs CPU per write",
  },
  {
    name: "PATCH $value, 100 elements in 10 submodels",
    paths: spreadPaths,
    method: "PATCH",
    target: "≥ 0.25× distributed, ≥ 0.6× embedded; ≤ 400 µs CPU per write",
  },
];

interface Variant {
  name: string;
  base: string;
  pids: Record<string, number>;
  /** The model-store whose commit script calls a write round reports (group size, time per call). */
  store?: TwinportProcess;
}

async function measure(all: Variant[], filter = true): Promise<void> {
  const variants = all.filter((v, i) => i === 0 || !filter || !onlyVariants || onlyVariants.includes(v.name));
  const kinds = KINDS.filter((k) => !only || only.some((o) => k.name.includes(o)));
  const results = new Map<string, WrkResult[]>();
  const key = (kind: Kind, variant: Variant) => `${kind.name}|${variant.name}`;
  // Every kind once on every variant before round 1: a write path first run in round 1 would be
  // measured while it is still being compiled (round 1 of a PATCH used to cost twice round 2).
  for (const kind of kinds)
    for (const variant of variants) {
      if (kind.variants && !kind.variants.includes(variant.name)) continue;
      await runWrk({ base: variant.base, paths: kind.paths, method: kind.method, seconds: 1, connections, dir }, {});
    }
  for (let round = 1; round <= rounds; round++) {
    for (const kind of kinds) {
      for (const variant of variants) {
        if (kind.variants && !kind.variants.includes(variant.name)) continue;
        const store = kind.method === "PATCH" ? variant.store : undefined;
        const callsBefore = store && (await commitCalls(store));
        const r = await runWrk(
          { base: variant.base, paths: kind.paths, method: kind.method, seconds, connections, dir },
          variant.pids,
        );
        (results.get(key(kind, variant)) ?? results.set(key(kind, variant), []).get(key(kind, variant))!).push(r);
        const cpu = cpuPerRequest(r.cpuMs, r.requests);
        console.log(
          `round ${round} ${`${variant.name}: ${kind.name}`.padEnd(72)} ${String(Math.round(r.rate)).padStart(6)} req/s  p50 ${r.p50Ms.toFixed(2).padStart(6)} ms  p99 ${r.p99Ms.toFixed(2).padStart(7)} ms${r.errors ? `  ${r.errors} ERRORS` : ""}`,
        );
        console.log(`        ${cpu.line}`);
        if (store && callsBefore) {
          // Where a distributed write waits: the script call (Redis's script and fsync, and the
          // turns of Redis and the model-store around them) against the whole request (p50).
          const now = await commitCalls(store);
          const calls = Math.max(now.calls - callsBefore.calls, 1);
          console.log(
            `        commit script calls: ${((now.commits - callsBefore.commits) / calls).toFixed(1)} commits per call, ${(((now.seconds - callsBefore.seconds) / calls) * 1000).toFixed(2)} ms per call (mean, sent → answered)`,
          );
        }
      }
    }
  }
  const [bare, ...others] = variants;
  console.log(
    `\nwrk -t1 -c${connections} -d${seconds}s; median of ${rounds} rounds, ratios to bare hono taken per round; ${idleLine()}:`,
  );
  for (const kind of kinds) {
    const base = results.get(key(kind, bare!))!;
    console.log(
      `${kind.name}: bare hono ${Math.round(median(base.map((r) => r.rate)))} req/s, server CPU ${Math.round(median(base.map((r) => cpuPerRequest(r.cpuMs, r.requests).serverUs)))} µs/request  (target ${kind.target})`,
    );
    for (const variant of others) {
      const mine = results.get(key(kind, variant));
      if (!mine) continue;
      const ratio = median(mine.map((r, i) => r.rate / base[i]!.rate));
      const perProcess = Object.keys(mine[0]!.cpuMs)
        .filter((name) => name !== "wrk")
        .map(
          (name) => `${name} ${Math.round(median(mine.map((r) => (r.cpuMs[name]! * 1000) / Math.max(r.requests, 1))))}`,
        )
        .join(", ");
      const server = median(mine.map((r) => cpuPerRequest(r.cpuMs, r.requests).serverUs));
      const errors = mine.reduce((n, r) => n + r.errors, 0);
      console.log(
        `  ${variant.name.padEnd(34)} ${ratio.toFixed(2)}×  ${String(Math.round(median(mine.map((r) => r.rate)))).padStart(6)} req/s  p50 ${median(mine.map((r) => r.p50Ms)).toFixed(2)} ms  p99 ${median(mine.map((r) => r.p99Ms)).toFixed(2)} ms  CPU µs/request: ${perProcess}; total ${Math.round(server)}${errors ? `  ${errors} ERRORS: not valid` : ""}`,
      );
    }
  }
}

/** A model-store's Prometheus text (its management port), or undefined without one. */
async function storeMetrics(store: TwinportProcess): Promise<string | undefined> {
  const url = store.details.management;
  return typeof url === "string" ? (await fetch(`${url}/metrics`)).text() : undefined;
}

/** The value of the first sample line of `name` whose labels include `has` (0 when there is none). */
function metricValue(text: string, name: string, has = ""): number {
  // e.g. twinport_commands_total{type="PatchSubmodelElementValueByPath",role="model-store"} 42
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(has));
  return line ? Number(line.split(" ").pop()) : 0;
}

/** PATCH $value commands a model-store has served so far (its twinport_commands_total metric). */
async function valueWrites(store: TwinportProcess): Promise<number> {
  const text = await storeMetrics(store);
  if (text === undefined) return Number.NaN;
  return metricValue(text, "twinport_commands_total", 'type="PatchSubmodelElementValueByPath"');
}

/** Commit script calls answered so far: how many, the commits they carried, their time in all. */
async function commitCalls(store: TwinportProcess): Promise<{ calls: number; commits: number; seconds: number }> {
  const text = (await storeMetrics(store)) ?? "";
  const answered = 'outcome="answered"';
  return {
    calls: metricValue(text, "twinport_store_commit_call_seconds_count", answered),
    commits: metricValue(text, "twinport_store_commits_per_call_sum"),
    seconds: metricValue(text, "twinport_store_commit_call_seconds_sum", answered),
  };
}

const processes: TwinportProcess[] = [];
const servers: { stop(): Promise<void> }[] = [];
try {
  const embeddedHttp = await plainHttpConfig(dir);
  processes.push(
    await startTwinport({ cwd: dir, args: ["-c", embeddedHttp.file, "-m", modelFile, "--endpoint", "http"] }),
  );
  const embeddedBase = `http://127.0.0.1:${embeddedHttp.port}/api/v3.0`;
  const client = createHttpClient(embeddedBase);
  const valueBody = (await client.get(onePath)).text;
  const submodelBody = (await client.get(`/submodels/${b64(LARGE)}`)).text;
  client.close();

  const bareHono = await startBareHono(dir, valueBody, submodelBody);
  servers.push(bareHono);

  // Redis as docker-compose.yml ships it: every write is fsynced before it is acknowledged.
  const redis = await startRedis({ appendOnly: true });
  const nats = await startNats();
  servers.push(redis, nats);
  const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
  // The model-stores' management ports (picked by the system) tell how many writes each served.
  const storeEnv = { ...env, TWINPORT_CORE_MANAGEMENTPORT: "0" };
  const storeA = await startTwinport({
    role: "model-store",
    cwd: mkdtempSync(join(dir, "store-a-")),
    args: ["-m", modelFile],
    env: storeEnv,
  });
  processes.push(storeA);
  const gatewayHttp = await plainHttpConfig(dir);
  const gateway = await startTwinport({
    role: "http-gateway",
    cwd: mkdtempSync(join(dir, "gw-")),
    args: ["-c", gatewayHttp.file],
    env,
  });
  processes.push(gateway);
  const uncachedHttp = await plainHttpConfig(dir);
  const uncached = await startTwinport({
    role: "http-gateway",
    cwd: mkdtempSync(join(dir, "uncached-")),
    args: ["-c", uncachedHttp.file],
    env: { ...env, TWINPORT_MESSAGEBUS_READCACHEMAXAGEMS: "0" },
  });
  processes.push(uncached);
  const backend = { "model-store": storeA.child.pid!, "nats-server": nats.pid, "redis-server": redis.pid };
  const withRules: Variant[] = [];
  if (process.env.BENCH_RULES === "1") {
    const rules = [
      { subjects: [{ anonymous: true }], rights: ["READ", "UPDATE"], objects: [{ submodels: "urn:bench:write:*" }] },
      ...Array.from({ length: 51 }, (_, i) => ({
        subjects: [{ role: `team-${i}` }],
        rights: ["READ", "UPDATE"],
        objects: [{ submodels: `urn:plant:${i}:*`, idShortPath: "Live" }],
      })),
    ];
    const securedHttp = await plainHttpConfig(dir, { security: { rules } });
    const secured = await startTwinport({
      cwd: mkdtempSync(join(dir, "secured-")),
      args: ["-c", securedHttp.file, "-m", modelFile, "--endpoint", "http"],
    });
    processes.push(secured);
    withRules.push({
      name: "embedded with rules",
      base: `http://127.0.0.1:${securedHttp.port}/api/v3.0`,
      pids: { twinport: secured.child.pid! },
    });
  }
  const variants: Variant[] = [
    { name: "bare hono", base: bareHono.base, pids: { "bare hono": bareHono.pid } },
    { name: "embedded", base: embeddedBase, pids: { twinport: processes[0]!.child.pid! } },
    ...withRules,
    {
      name: "distributed",
      base: `http://127.0.0.1:${gatewayHttp.port}/api/v3.0`,
      pids: { "http-gateway": gateway.child.pid!, ...backend },
      store: storeA,
    },
    {
      name: "distributed, read cache off",
      base: `http://127.0.0.1:${uncachedHttp.port}/api/v3.0`,
      pids: { "http-gateway": uncached.child.pid!, ...backend },
      store: storeA,
    },
  ];
  await measure(variants);
  if (process.env.BENCH_REPLICAS !== "1") {
    // A second replica: the gateway sends each submodel's commands to the replica it hashes to (ADR 0027).
    const storeB = await startTwinport({
      role: "model-store",
      cwd: mkdtempSync(join(dir, "store-b-")),
      args: ["-m", modelFile],
      env: storeEnv,
    });
    processes.push(storeB);
    console.log(
      "\nwith a second model-store replica (issue 12 target 7: CPU per write stays the same, both replicas serve):",
    );
    const before = await Promise.all([storeA, storeB].map(valueWrites));
    await measure(
      [
        variants[0]!,
        {
          name: "distributed, 2 model-stores",
          base: variants[2]!.base,
          pids: {
            "http-gateway": gateway.child.pid!,
            "model-store A": storeA.child.pid!,
            "model-store B": storeB.child.pid!,
            "nats-server": nats.pid,
            "redis-server": redis.pid,
          },
        },
      ],
      false,
    );
    const served = (await Promise.all([storeA, storeB].map(valueWrites))).map((n, i) => n - before[i]!);
    const all = Math.max(served[0]! + served[1]!, 1);
    console.log(
      `PATCH $value served over both kinds: model-store A ${served[0]} (${Math.round((served[0]! * 100) / all)} %), model-store B ${served[1]} (${Math.round((served[1]! * 100) / all)} %)`,
    );
  }
} finally {
  for (const p of processes.reverse()) await p.stop();
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
}
