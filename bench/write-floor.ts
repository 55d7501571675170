/**
 * The floor of a distributed write in this architecture (issue 12, item 1): what a PATCH costs when
 * the gateway and the store do nothing but the hops. wrk → a floor gateway (node:http; the writes
 * of a turn as one NATS message) → nats-server → a floor store (one Lua script call per batch in
 * redis-server with AOF and `appendfsync always`, then the events and one reply on NATS) → back.
 * Both floor processes are in bench/test-support (floor-gateway.ts, floor-store.ts).
 *
 * Measured in one run beside bare Hono (the issue's yardstick) and, unless BENCH_TWINPORT=0, beside
 * Twinport's distributed mode on the same kind of processes and servers, so the three ratios
 * compare: bare Hono → floor is what the architecture's hops cost on this machine, floor →
 * Twinport what our code adds on top of them. Two floors: change events as one NATS message per
 * write (what Twinport publishes) and as one message per store batch.
 *
 * GET `$value` too: the floor gateway answers it from memory after one NATS barrier per event-loop
 * turn (the PING Twinport's read cache sends before a hit).
 *
 * Run: npm run bench -- write-floor   (BENCH_SECONDS=3 BENCH_ROUNDS=3 BENCH_CONNECTIONS=16; BENCH_ONLY=PATCH or GET)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport, type TwinportProcess } from "../tests/test-support/system.ts";
import { idleLine, median, plainHttpConfig, startBareHono } from "./test-support/bench-setup.ts";
import { ONE_PATH, writeWritePathModel } from "./test-support/write-path-model.ts";
import { callsPerRequest, cpuPerRequest, runWrk, type WrkResult } from "./test-support/wrk.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const withTwinport = process.env.BENCH_TWINPORT !== "0";

const dir = mkdtempSync(join(tmpdir(), "twinport-bench-floor-"));
const stops: (() => Promise<void>)[] = [];

interface Variant {
  name: string;
  base: string;
  pids: Record<string, number>;
}

/** A floor process (bench/test-support/floor-*.ts), resolved once it printed "ready". */
async function startFloorProcess(script: string, args: string[]): Promise<{ pid: number; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", new URL(`./test-support/${script}`, import.meta.url).pathname, ...args],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return {
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** nats-server, redis-server (AOF, fsync always), a floor store and a floor gateway. */
async function startFloor(name: string, events: "single" | "batch"): Promise<Variant> {
  const redis = await startRedis({ appendOnly: true });
  const nats = await startNats();
  stops.push(
    () => nats.stop(),
    () => redis.stop(),
  );
  const store = await startFloorProcess("floor-store.ts", [nats.url, String(redis.port), events]);
  const port = await freePort();
  const gateway = await startFloorProcess("floor-gateway.ts", [String(port), nats.url]);
  stops.push(gateway.stop, store.stop);
  return {
    name,
    base: `http://127.0.0.1:${port}/api/v3.0`,
    pids: { gateway: gateway.pid, store: store.pid, "nats-server": nats.pid, "redis-server": redis.pid },
  };
}

async function startDistributed(): Promise<Variant> {
  const modelFile = writeWritePathModel(dir);
  const redis = await startRedis({ appendOnly: true });
  const nats = await startNats();
  stops.push(
    () => nats.stop(),
    () => redis.stop(),
  );
  const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
  const store: TwinportProcess = await startTwinport({
    role: "model-store",
    cwd: mkdtempSync(join(dir, "s-")),
    args: ["-m", modelFile],
    env,
  });
  const http = await plainHttpConfig(dir);
  const gateway = await startTwinport({
    role: "http-gateway",
    cwd: mkdtempSync(join(dir, "g-")),
    args: ["-c", http.file],
    env,
  });
  stops.push(
    async () => void (await gateway.stop()),
    async () => void (await store.stop()),
  );
  return {
    name: "Twinport distributed",
    base: `http://127.0.0.1:${http.port}/api/v3.0`,
    pids: { gateway: gateway.child.pid!, store: store.child.pid!, "nats-server": nats.pid, "redis-server": redis.pid },
  };
}

try {
  // The same bytes as the floor gateway's GET answer.
  const bare = await startBareHono(dir, "1", "{}");
  stops.push(bare.stop);
  const variants: Variant[] = [
    { name: "bare hono", base: bare.base, pids: { "bare hono": bare.pid } },
    await startFloor("floor, an event per write", "single"),
    await startFloor("floor, an event per batch", "batch"),
    ...(withTwinport ? [await startDistributed()] : []),
  ];
  const paths = [ONE_PATH];
  const methods = (process.env.BENCH_ONLY ?? "PATCH,GET").split(",") as ("GET" | "PATCH")[];
  // A first second on each: measured code is optimized code, not the interpreter's.
  for (const method of methods)
    for (const v of variants) await runWrk({ base: v.base, paths, method, seconds: 1, connections, dir }, {});
  const results = new Map<string, WrkResult[]>();
  for (let round = 1; round <= rounds; round++)
    for (const method of methods)
      for (const v of variants) {
        const r = await runWrk({ base: v.base, paths, method, seconds, connections, dir }, v.pids);
        const key = `${method} ${v.name}`;
        (results.get(key) ?? results.set(key, []).get(key)!).push(r);
        console.log(
          `round ${round} ${method.padEnd(5)} ${v.name.padEnd(28)} ${String(Math.round(r.rate)).padStart(6)} req/s  p50 ${r.p50Ms.toFixed(2)} ms${r.errors ? `  ${r.errors} ERRORS` : ""}\n        ${cpuPerRequest(r.cpuMs, r.requests).line}\n        system calls per request (reads/writes): ${callsPerRequest(r.calls, r.requests)}`,
        );
      }
  console.log(
    `\nOne element's $value, wrk -t1 -c${connections} -d${seconds}s; median of ${rounds} rounds, ratios to bare hono per round; ${idleLine()}:`,
  );
  for (const method of methods) {
    const base = results.get(`${method} bare hono`)!;
    console.log(`${method}: bare hono ${Math.round(median(base.map((r) => r.rate)))} req/s`);
    for (const v of variants.slice(1)) {
      const mine = results.get(`${method} ${v.name}`)!;
      const ratio = median(mine.map((r, i) => r.rate / base[i]!.rate));
      const cpu = Object.keys(mine[0]!.cpuMs)
        .filter((name) => name !== "wrk")
        .map((name) => `${name} ${Math.round(median(mine.map((r) => (r.cpuMs[name]! * 1000) / r.requests)))}`)
        .join(", ");
      console.log(
        `  ${v.name.padEnd(28)} ${ratio.toFixed(2)}×  ${Math.round(median(mine.map((r) => r.rate)))} req/s  CPU µs/request: ${cpu}`,
      );
    }
  }
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
