/**
 * ADR 0043's table: full GCs, scavenges and CPU per PATCH of one twinport process serving OPC UA,
 * for given V8 heap flags. An embedded process (the opcua-latency model, three subscriptions as
 * there: 0/5, 5/5, 100/100) idles 10 s, then takes PROBE_N PATCHes one at a time, 5 ms apart.
 * Prints per phase the CPU of the server and of this process and every GC and loop stall by kind
 * (bench/test-support/loop-timeline.ts), and the server's heap at the end of the phase.
 *
 * Run: npm run bench -- heap-probe
 *   options: PROBE_N=400; PROBE_NODE_OPTIONS="--max-semi-space-size=2" (node flags of the server:
 *            naming a semi-space or growing flag turns bin/heap-settings.js off, ADR 0043);
 *            BENCH_V8_FLAGS="--heap-growing-percent=50 --trace-gc" (set at run time in the server by
 *            loop-stats.ts; tracing goes to its stdout, copied to PROBE_OUT_DIR when given)
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LoopStats } from "./test-support/loop-stats.ts";

const statsDir = mkdtempSync(join(tmpdir(), "twinport-heap-probe-"));
process.env.BENCH_LOOP_STATS_DIR = statsDir;
process.env.BENCH_LOOP_TIMELINE = "1";
const preload = new URL("./test-support/loop-stats.ts", import.meta.url).href;
process.env.NODE_OPTIONS =
  `${process.env.NODE_OPTIONS ?? ""} --import=${preload} ${process.env.PROBE_NODE_OPTIONS ?? ""}`.trim();
const { startOpcuaSystem } = await import("../tests/opcua/opcua-system.ts");
const { b64 } = await import("../tests/test-support/http-client.ts");
const { elementNode } = await import("../tests/test-support/opcua-model.ts");
const { processCpuMs } = await import("./test-support/process-cpu.ts");
const { recordLoopTimeline } = await import("./test-support/loop-timeline.ts");
const { timelineSummary } = await import("./test-support/slow-samples.ts");

const SUBMODEL = "urn:bench:opcua:latency";
const model = {
  submodels: [
    {
      modelType: "Submodel",
      id: SUBMODEL,
      idShort: "Latency",
      submodelElements: Array.from({ length: 100 }, (_, i) => ({
        modelType: "Property",
        idShort: `P${i}`,
        valueType: "xs:int",
        value: "0",
      })),
    },
  ],
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const own = recordLoopTimeline();
const system = await startOpcuaSystem("embedded", { model });
const serverPid = Number(
  readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .find((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("twinport.js")),
);

async function collect(): Promise<LoopStats[]> {
  for (const file of readdirSync(statsDir)) rmSync(join(statsDir, file));
  process.kill(serverPid, "SIGUSR2");
  const written = () => readdirSync(statsDir).filter((file) => file.endsWith(".json"));
  for (let tries = 0; tries < 100 && written().length === 0; tries++) await pause(20);
  const server = written().map((file) => JSON.parse(readFileSync(join(statsDir, file), "utf8")) as LoopStats);
  return [
    ...server,
    {
      pid: process.pid,
      role: "probe client",
      seconds: 0,
      loopDelayMs: { p50: 0, p99: 0, max: 0 },
      gc: { count: 0, totalMs: 0, maxMs: 0, over2Ms: 0 },
      timeline: own.take(),
    },
  ];
}
const cpu = () => {
  const usage = process.cpuUsage();
  return { server: processCpuMs(serverPid), client: (usage.user + usage.system) / 1000 };
};

async function phase(name: string, work: () => Promise<number>): Promise<void> {
  await collect();
  const before = cpu();
  const started = performance.now();
  const patches = await work();
  const seconds = (performance.now() - started) / 1000;
  const after = cpu();
  const stats = await collect();
  console.log(`== ${name}: ${seconds.toFixed(1)} s`);
  for (const who of ["server", "client"] as const) {
    const ms = after[who] - before[who];
    const per = patches > 0 ? `${Math.round((ms * 1000) / patches)} µs per PATCH` : `${(ms / seconds).toFixed(1)} ms/s`;
    console.log(`  ${who} CPU ${ms.toFixed(0)} ms, ${per}`);
  }
  console.log(`  ${timelineSummary(new Map(stats.map((s) => [s.role, s.timeline ?? []]))).join("\n  ")}`);
  for (const s of stats) if (s.heapMb) console.log(`  ${s.role} heap MB ${JSON.stringify(s.heapMb)}`);
}

const [opcua] = system.opcua;
const monitors = [];
for (const [index, [samplingInterval, publishingInterval]] of [
  [0, 5],
  [5, 5],
  [100, 100],
].entries()) {
  const monitor = await opcua!.monitor(elementNode(SUBMODEL, `P${50 + index}`, "Value"), {
    samplingInterval,
    publishingInterval,
  });
  await monitor.waitFor(() => true, 5000, "the initial value");
  monitors.push(monitor);
}
console.log(
  `server node options: ${process.env.PROBE_NODE_OPTIONS ?? "(none)"}; V8 flags at run time: ${process.env.BENCH_V8_FLAGS ?? "(none)"}`,
);
await phase("idle 10 s", async () => {
  await pause(10_000);
  return 0;
});
const count = Number(process.env.PROBE_N ?? 400);
await phase(`${count} PATCHes one at a time, 5 ms apart`, async () => {
  for (let i = 1; i <= count; i++) {
    const url = `/submodels/${b64(SUBMODEL)}/submodel-elements/P${50 + (i % 2)}/$value`;
    const response = await system.http.request("PATCH", url, { body: String(i) });
    if (response.status !== 204) throw new Error(`PATCH answered ${response.status}: ${response.text}`);
    await pause(5);
  }
  return count;
});
const outDir = process.env.PROBE_OUT_DIR;
if (outDir) {
  const cwd = readlinkSync(`/proc/${serverPid}/cwd`);
  for (const file of readdirSync(cwd).filter((f) => f.endsWith(".out")))
    copyFileSync(join(cwd, file), join(outDir, file));
}
for (const monitor of monitors) await monitor.stop();
await system.stop();
own.stop();
rmSync(statsDir, { recursive: true, force: true });
