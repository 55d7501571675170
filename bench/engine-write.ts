/**
 * The engine's share of a write (issue 12 item 1): CPU per `PatchSubmodelElementValueByPath` of this
 * one process, with no HTTP, NATS or other process in the way, so a change to the engine or the
 * Redis repository shows in the figure instead of in the noise of five processes on two cores.
 *
 * The engine runs as embedded mode and the model-store compose it: the metered handler (metrics,
 * the per-write log line, to /dev/null as JSON lines coalesced per turn), the direct store client,
 * an event bus with one subscriber; the repository is the memory one (embedded) or Redis as shipped
 * (AOF, appendfsync always; the model-store's record cache). `BENCH_CONCURRENCY` writers (16) each
 * write, await the reply, write again, like wrk's connections: to one Property, or spread over 100
 * Properties in 10 submodels. Kind `ingest` is what an MQTT asset connection sends the engine
 * (bench/asset-ingest.ts): 256 writes in flight (its delivery slots) over 1,000 xs:double
 * Properties in 10 more submodels, bodies as JSON strings, origin "asset", through the engine
 * without the metered handler (the model-store's asset connections call it directly).
 *
 * Repository `redis-cluster` is the same on a 3-node Redis Cluster (docs/adr/0040; each node AOF,
 * appendfsync always): redis-server CPU and script calls are summed over the nodes.
 *
 * Run: npm run bench -- engine-write   (BENCH_WRITES=20000 BENCH_ROUNDS=3 BENCH_CONCURRENCY=16
 *   BENCH_REPOS=memory,redis,redis-cluster BENCH_KINDS=one,spread,ingest)
 * Prints per repository and kind: writes/s, CPU µs per write of this process (user + system), and
 * for Redis the redis-server's CPU per write (and how much of it ran inside the commit script, from
 * INFO commandstats: the rest is reading, AOF writing, fsync and replying) and its script calls per write.
 */
import { execFileSync } from "node:child_process";
import { openSync, writeSync } from "node:fs";
import {
  createDirectStoreClient,
  createEngine,
  createInProcessEventBus,
  createLogger,
  createMemoryRepository,
  createProcessMetrics,
  meteredCommandHandler,
  type Repository,
  type StoreClient,
} from "@twinport/shared";
import { startRedisCluster } from "../tests/test-support/redis-cluster.ts";
import { startRedis } from "../tests/test-support/servers.ts";
import { generatedSubmodel } from "./test-support/generated-model.ts";
import { processCpuMs } from "./test-support/process-cpu.ts";

const writes = Number(process.env.BENCH_WRITES ?? 20_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const repos = (process.env.BENCH_REPOS ?? "memory,redis").split(",");
const kinds = (process.env.BENCH_KINDS ?? "one,spread,ingest").split(",");
const devNull = openSync("/dev/null", "w");
const SUBMODELS = Array.from({ length: 10 }, (_, i) => `urn:bench:engine-write:sm${i}`);
const INGEST = Array.from({ length: 10 }, (_, i) => `urn:bench:engine-write:ingest${i}`);
const INGEST_SLOTS = 256;

function doubles(id: string): Record<string, unknown> {
  const submodel = generatedSubmodel(id, 100);
  for (const element of submodel.submodelElements as Record<string, unknown>[]) element.valueType = "xs:double";
  return submodel;
}

interface System {
  store: StoreClient;
  /** The engine without the metered handler, as the model-store's asset connections call it. */
  direct: StoreClient;
  redisPids?: number[];
  /** Script calls and µs spent inside scripts so far (INFO commandstats), summed over the nodes. */
  scriptCalls?: () => { calls: number; usec: number };
  close(): Promise<void>;
}

async function startSystem(kind: string): Promise<System> {
  const single = kind === "redis" ? await startRedis({ appendOnly: process.env.BENCH_AOF !== "0" }) : undefined;
  const cluster = kind === "redis-cluster" ? await startRedisCluster() : undefined;
  const redis = single
    ? { pids: [single.pid], ports: [single.port], stop: () => single.stop() }
    : cluster
      ? { pids: cluster.pids(), ports: cluster.ports, stop: () => cluster.stop() }
      : undefined;
  let repository: Repository;
  let closeRepository: () => Promise<void>;
  if (redis) {
    const { createRedisRepository } = await import("@twinport/model-store");
    const r = await createRedisRepository(
      cluster ? { url: cluster.nodes[0]!, cluster: { nodes: cluster.nodes } } : { url: single!.url },
    );
    repository = r;
    closeRepository = () => r.close();
  } else {
    repository = createMemoryRepository({ eventLog: { maxEvents: 10_000, maxAgeMs: 86_400_000 } });
    closeRepository = async () => repository.close();
  }
  const bus = createInProcessEventBus();
  let events = 0;
  await bus.subscribe({ onEvent: () => void events++ });
  const engine = createEngine({
    repository,
    bus,
    publishEvents: true,
    ...(redis ? { recordCacheSize: 10_000 } : {}),
  });
  const logger = createLogger({
    role: "bench",
    destination: { write: (text: string) => writeSync(devNull, text) },
    coalesce: true,
  });
  const store = createDirectStoreClient(meteredCommandHandler(engine, createProcessMetrics("bench"), logger));
  const loaded = await store.execute({
    type: "LoadEnvironment",
    params: {
      body: JSON.stringify({
        submodels: [...SUBMODELS.map((id) => generatedSubmodel(id, 10)), ...INGEST.map(doubles)],
      }),
    },
    origin: "load",
  } as never);
  if (!loaded.ok) throw new Error(`load: ${JSON.stringify(loaded.error)}`);
  return {
    store,
    direct: createDirectStoreClient(engine),
    ...(redis
      ? {
          redisPids: redis.pids,
          scriptCalls: () => {
            let calls = 0;
            let usec = 0;
            for (const port of redis.ports) {
              const info = execFileSync("redis-cli", ["-p", String(port), "info", "commandstats"]).toString();
              const evalsha = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(info);
              calls += Number(evalsha?.[1] ?? 0);
              usec += Number(evalsha?.[2] ?? 0);
            }
            return { calls, usec };
          },
        }
      : {}),
    async close() {
      await engine.close();
      await bus.close();
      await closeRepository();
      await redis?.stop();
    },
  };
}

async function run(
  system: System,
  kind: string,
  count: number,
): Promise<{ ms: number; cpuMs: number; redisMs: number; calls: number; scriptMs: number }> {
  const ingest = kind === "ingest";
  const targets =
    kind === "one"
      ? [{ submodelId: SUBMODELS[0]!, idShortPath: "P5" }]
      : (ingest ? INGEST : SUBMODELS).flatMap((submodelId) =>
          Array.from({ length: ingest ? 100 : 10 }, (_, i) => ({ submodelId, idShortPath: `P${i}` })),
        );
  const store = ingest ? system.direct : system.store;
  let next = 0;
  const calls0 = system.scriptCalls?.() ?? { calls: 0, usec: 0 };
  const redisCpu = () => (system.redisPids ?? []).reduce((sum, pid) => sum + processCpuMs(pid), 0);
  const redis0 = redisCpu();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const writer = async () => {
    while (next < count) {
      const n = next++;
      const target = targets[n % targets.length]!;
      const reply = await store.execute(
        ingest
          ? {
              type: "PatchSubmodelElementValueByPath",
              params: { ...target, body: JSON.stringify(String(n / 1000)) },
              origin: "asset",
            }
          : {
              type: "PatchSubmodelElementValueByPath",
              params: { ...target, body: String(n) },
              origin: "http",
              correlationId: `bench-${n}`,
            },
      );
      if (!reply.ok) throw new Error(`write ${n}: ${JSON.stringify(reply.error)}`);
    }
  };
  await Promise.all(Array.from({ length: ingest ? INGEST_SLOTS : concurrency }, writer));
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return {
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    redisMs: system.redisPids ? redisCpu() - redis0 : 0,
    ...(() => {
      const calls1 = system.scriptCalls?.() ?? { calls: 0, usec: 0 };
      return { calls: calls1.calls - calls0.calls, scriptMs: (calls1.usec - calls0.usec) / 1000 };
    })(),
  };
}

console.log(
  `engine-write: ${writes} writes per round, ${concurrency} writers, ${rounds} rounds (load ${(await import("node:os"))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")})`,
);
for (const repo of repos) {
  const system = await startSystem(repo);
  try {
    for (const kind of kinds) {
      await run(system, kind, Math.min(writes, 5000)); // warm-up
      for (let round = 1; round <= rounds; round++) {
        const r = await run(system, kind, writes);
        const per = (ms: number) => ((ms * 1000) / writes).toFixed(1);
        console.log(
          `${repo.padEnd(13)} ${kind.padEnd(6)} round ${round}: ${Math.round((writes * 1000) / r.ms)} writes/s, CPU ${per(r.cpuMs)} µs per write` +
            (system.redisPids
              ? `; redis-server ${per(r.redisMs)} µs (${per(r.scriptMs)} inside the script), ${(r.calls / writes).toFixed(3)} script calls per write`
              : ""),
        );
      }
    }
  } finally {
    await system.close();
  }
}
