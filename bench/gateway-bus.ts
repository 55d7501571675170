/**
 * The http-gateway's share of a distributed request without HTTP (issue 12): this process builds
 * the gateway's store stack exactly as http-gateway-process.ts does (NATS store client, event bus,
 * read cache) against a real model-store process, redis-server (AOF, `appendfsync always`) and
 * nats-server, and sends the commands an HTTP PATCH or GET `$value` sends, 16 at a time. It prints
 * the CPU this process spent per command (user + system, from process.cpuUsage), which is what
 * the gateway pays on the bus per request, beside every other process's share. CPU, not rates:
 * on the shared machine the rates swing, the CPU per command much less.
 *
 * Each write kind runs twice per round, alternating: with command batches (docs/adr/0042, the
 * default) and with single commands (`batchWrites: false`, as before), so both are measured at the
 * same load in one run.
 *
 * Run: npm run bench -- gateway-bus   (BENCH_SECONDS=3 BENCH_ROUNDS=3 BENCH_CONNECTIONS=16; BENCH_ONLY=PATCH
 * keeps the kinds whose name holds it; BENCH_BATCHES_IN_FLIGHT=n lets n batches per replica be out)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import {
  type Command,
  type CommandType,
  connectNats,
  createCachingStoreClient,
  createNatsEventBus,
  createNatsStoreClient,
  eventLogReader,
  type StoreClient,
  SYSTEM,
} from "@twinport/shared";
import { startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport } from "../tests/test-support/system.ts";
import { median } from "./test-support/bench-setup.ts";
import { generatedSubmodel } from "./test-support/generated-model.ts";
import { processCpuMs } from "./test-support/process-cpu.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const concurrency = Number(process.env.BENCH_CONNECTIONS ?? 16);

const dir = mkdtempSync(join(tmpdir(), "twinport-bench-gateway-bus-"));
const SUBMODEL = "urn:bench:gateway-bus:sm0";
const modelFile = join(dir, "model.json");
writeFileSync(modelFile, JSON.stringify({ submodels: [generatedSubmodel(SUBMODEL, 10)] }));

const redis = await startRedis({ appendOnly: true });
const nats = await startNats();
const store = await startTwinport({
  role: "model-store",
  cwd: mkdtempSync(join(dir, "s-")),
  args: ["-m", modelFile],
  env: { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url },
});
const connection = await connectNats({ url: nats.url, name: "bench-gateway-bus", onChange: () => {} });
const inFlight = process.env.BENCH_BATCHES_IN_FLIGHT;
const remote = createNatsStoreClient({
  connection,
  ...(inFlight ? { maxBatchesInFlight: Number(inFlight) } : {}),
});
const bus = createNatsEventBus({ connection, fetchEvents: eventLogReader(() => remote, SYSTEM) });
const client: StoreClient = await createCachingStoreClient(remote, { bus, maxAgeMs: 5000, maxBytes: 64 << 20 });
// The same stack with single commands (before ADR 0042), on the same connection and bus.
const singleRemote = createNatsStoreClient({ connection, batchWrites: false });
const singleClient: StoreClient = await createCachingStoreClient(singleRemote, {
  bus,
  maxAgeMs: 5000,
  maxBytes: 64 << 20,
});

let counter = 0;
const patch = (): Command<CommandType> => ({
  type: "PatchSubmodelElementValueByPath",
  params: { submodelId: SUBMODEL, idShortPath: "P5", body: String(++counter % 100000) },
  origin: "http",
  correlationId: crypto.randomUUID(),
});
/** Writes spread over the 10 Properties (each its own element: several commit targets per batch). */
const patchSpread = (): Command<CommandType> => ({
  type: "PatchSubmodelElementValueByPath",
  params: { submodelId: SUBMODEL, idShortPath: `P${counter % 10}`, body: String(++counter % 100000) },
  origin: "http",
  correlationId: crypto.randomUUID(),
});
const getValue = (): Command<CommandType> => ({
  type: "GetSubmodelElementByPath",
  params: { submodelId: SUBMODEL, idShortPath: "P5", modifiers: { content: "value" } },
  origin: "http",
  correlationId: crypto.randomUUID(),
});
const ALL_KINDS = [
  { name: "PATCH $value (command, reply, event)", command: patch, options: undefined, client },
  {
    name: "PATCH $value, single commands",
    command: patch,
    options: undefined,
    client: singleClient,
  },
  { name: "PATCH $value, 10 elements (batched)", command: patchSpread, options: undefined, client },
  {
    name: "PATCH $value, 10 elements, single commands",
    command: patchSpread,
    options: undefined,
    client: singleClient,
  },
  { name: "GET $value (read cache hit, barrier)", command: getValue, options: { rawValue: true as const }, client },
];
const only = process.env.BENCH_ONLY;
const KINDS = ALL_KINDS.filter((kind) => !only || kind.name.includes(only));

const pids = { "model-store": store.child.pid!, "nats-server": nats.pid, "redis-server": redis.pid };

/** Time this process spent in garbage collection (main thread pauses), from the gc performance entries. */
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ["gc"] });

async function run(kind: (typeof KINDS)[number]) {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  let failed = 0;
  const others = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuMs(pid)]));
  const cpu = process.cpuUsage();
  const gcBefore = gcMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        const reply = await kind.client.execute(kind.command(), kind.options);
        if (!reply.ok) failed++;
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const perProcess = Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => [name, ((processCpuMs(pid) - others[name]!) * 1000) / done]),
  );
  const shares = Object.entries(perProcess)
    .map(([name, us]) => `${name} ${Math.round(us)} µs`)
    .join(", ");
  const gcUs = ((gcMs - gcBefore) * 1000) / done;
  const gatewayUs = (used.user + used.system) / done;
  const totalUs = gatewayUs + Object.values(perProcess).reduce((a, b) => a + b, 0);
  return { rate: done / elapsed, gatewayUs, gcUs, failed, shares, perProcess, totalUs };
}

try {
  for (const kind of KINDS) await run({ ...kind }); // warm-up
  const results = new Map<string, { gatewayUs: number; totalUs: number; perProcess: Record<string, number> }[]>();
  for (let round = 1; round <= rounds; round++) {
    for (const kind of KINDS) {
      const r = await run(kind);
      results.set(kind.name, [...(results.get(kind.name) ?? []), r]);
      console.log(
        `round ${round} ${kind.name.padEnd(44)} ${Math.round(r.rate)}/s, gateway side ${r.gatewayUs.toFixed(1)} µs per command (GC pauses ${r.gcUs.toFixed(1)} µs)` +
          `${r.failed ? `, ${r.failed} FAILED` : ""}; ${r.shares}; total ${Math.round(r.totalUs)} µs`,
      );
    }
  }
  for (const [name, values] of results) {
    const others = Object.keys(pids)
      .map((process) => `${process} ${Math.round(median(values.map((v) => v.perProcess[process]!)))}`)
      .join(", ");
    console.log(
      `median ${name.padEnd(44)} gateway side ${median(values.map((v) => v.gatewayUs)).toFixed(1)} µs per command; ${others}; total ${Math.round(median(values.map((v) => v.totalUs)))} µs`,
    );
  }
} finally {
  await client.close();
  await singleClient.close();
  await bus.close();
  await connection.close();
  await store.stop();
  await nats.stop();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
}
