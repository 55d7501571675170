/**
 * Where an HTTP request's CPU goes on the hot paths of bench/write-path.ts: one process (embedded
 * Twinport, or the http-gateway with its model-store) under wrk with `--cpu-prof`, then the
 * summary of bench/test-support/cpuprofile-summary.ts per profiled process. A tool for the HTTP
 * hot path work (issue 12, ADR 0026), not a benchmark: it prints no ratios.
 *
 * Run: node --import tsx bench/profile-http.ts MODE KIND
 *   MODE: embedded | embedded-opcua (with an OPC UA endpoint, as `npm start`) | distributed |
 *         uncached (distributed with the gateway's read cache off)
 *   KIND: get-value | get-submodel | patch-one | patch-spread
 * Distributed modes also print NATS messages and Redis calls (INFO commandstats, script-internal calls
 * included) per request.
 * (PROFILE_SECONDS=5 PROFILE_CONNECTIONS=16 PROFILE_TOP=25; PROFILE_STRACE=http-gateway counts that
 * process's system calls during the run with `strace -c`, PROFILE_STRACE_WALL=1 timing them by the wall clock). `source scripts/source-mode.sh` first
 * to profile the TypeScript sources (as the benches run them) instead of dist/.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { b64 } from "../tests/test-support/http-client.ts";
import { startNats, startRedis } from "../tests/test-support/servers.ts";
import { startTwinport, type TwinportProcess } from "../tests/test-support/system.ts";
import { idleLine, loopbackOpcUaEndpoint, plainHttpConfig } from "./test-support/bench-setup.ts";
import { generatedSubmodel } from "./test-support/generated-model.ts";
import { voluntarySwitches } from "./test-support/process-cpu.ts";
import { callsPerRequest, cpuPerRequest, runWrk } from "./test-support/wrk.ts";

const [mode = "embedded", kind = "get-value"] = process.argv.slice(2);
const seconds = Number(process.env.PROFILE_SECONDS ?? 5);
const connections = Number(process.env.PROFILE_CONNECTIONS ?? 16);
const top = process.env.PROFILE_TOP ?? "25";

const dir = mkdtempSync(join(tmpdir(), "twinport-profile-http-"));
const SMS = Array.from({ length: 10 }, (_, i) => `urn:profile:sm${i}`);
const LARGE = "urn:profile:large";
const modelFile = join(dir, "model.json");
writeFileSync(
  modelFile,
  JSON.stringify({ submodels: [...SMS.map((id) => generatedSubmodel(id, 10)), generatedSubmodel(LARGE, 1000)] }),
);
const valuePath = (sm: string, i: number) => `/submodels/${b64(sm)}/submodel-elements/P${i}/$value`;
const paths =
  kind === "get-submodel"
    ? [`/submodels/${b64(LARGE)}`]
    : kind === "patch-spread"
      ? SMS.flatMap((sm) => Array.from({ length: 10 }, (_, i) => valuePath(sm, i)))
      : [valuePath(SMS[0]!, 5)];
const method = kind.startsWith("patch") ? "PATCH" : "GET";

const profDir = join(dir, "prof");
// PROFILE_PERF=name: that process runs under `perf record` (on-CPU samples, kernel time included)
// instead of --cpu-prof, whose wall-clock samples make system calls look larger than they cost.
const perfOf = process.env.PROFILE_PERF;
const prof = (name: string) =>
  name === perfOf ? ["--perf-basic-prof"] : ["--cpu-prof", `--cpu-prof-dir=${join(profDir, name)}`];
const processes: TwinportProcess[] = [];
const servers: { stop(): Promise<void> }[] = [];
const pids: Record<string, number> = {};
// embedded-opcua: embedded with an OPC UA endpoint beside HTTP, as `npm start` runs it.
const http = await plainHttpConfig(dir, {}, mode === "embedded-opcua" ? [await loopbackOpcUaEndpoint()] : []);
// Only the measured run is summarised: start-up (module loading through tsx) would blur it.
const window = { from: 0n, to: 0n };
let natsMonitor: number | undefined;
let redisPort: number | undefined;
/**
 * redis-server's calls per command (INFO commandstats): which commands a request costs besides the
 * commit script (lease renewals, outbox reads), the Redis half of "NATS messages per request".
 */
const redisCalls = (): Map<string, number> => {
  const out = spawnSync("redis-cli", ["-p", String(redisPort), "info", "commandstats"], { encoding: "utf8" }).stdout;
  return new Map([...out.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
};
/** nats-server's message counters (its /varz): how many messages a request costs on the bus. */
const natsCounts = async (): Promise<{ in: number; out: number }> => {
  const varz = (await (await fetch(`http://127.0.0.1:${natsMonitor}/varz`)).json()) as {
    in_msgs: number;
    out_msgs: number;
  };
  return { in: varz.in_msgs, out: varz.out_msgs };
};
try {
  if (mode === "embedded" || mode === "embedded-opcua") {
    const p = await startTwinport({
      cwd: dir,
      args: ["-c", http.file, "-m", modelFile, ...(mode === "embedded" ? ["--endpoint", "http"] : [])],
      nodeArgs: prof("twinport"),
    });
    processes.push(p);
    pids.twinport = p.child.pid!;
  } else {
    const redis = await startRedis({ appendOnly: true });
    const nats = await startNats();
    servers.push(redis, nats);
    natsMonitor = nats.monitorPort;
    redisPort = redis.port;
    const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
    const store = await startTwinport({
      role: "model-store",
      cwd: mkdtempSync(join(dir, "s-")),
      args: ["-m", modelFile],
      env,
      nodeArgs: prof("model-store"),
    });
    processes.push(store);
    const gateway = await startTwinport({
      role: "http-gateway",
      cwd: mkdtempSync(join(dir, "g-")),
      args: ["-c", http.file],
      env: mode === "uncached" ? { ...env, TWINPORT_MESSAGEBUS_READCACHEMAXAGEMS: "0" } : env,
      nodeArgs: prof("http-gateway"),
    });
    processes.push(gateway);
    Object.assign(pids, {
      "http-gateway": gateway.child.pid!,
      "model-store": store.child.pid!,
      "nats-server": nats.pid,
      "redis-server": redis.pid,
    });
  }
  const base = `http://127.0.0.1:${http.port}/api/v3.0`;
  await runWrk({ base, paths, method, seconds: 1, connections, dir }, {});
  window.from = process.hrtime.bigint() / 1000n;
  // PROFILE_STRACE=name: count that process's system calls during the run (how many socket
  // writes a request costs is what a wall-clock profile cannot tell).
  const traced = process.env.PROFILE_STRACE;
  const strace =
    traced && pids[traced]
      ? spawn(
          "strace",
          // PROFILE_STRACE_WALL=1: wall-clock time per call (-w), e.g. how long redis-server's fdatasync
          // waits for the disk; without it strace -c counts only the CPU time spent in the kernel.
          [
            "-c",
            ...(process.env.PROFILE_STRACE_WALL === "1" ? ["-w"] : []),
            "-f",
            "-p",
            String(pids[traced]),
            "-o",
            join(dir, "strace.txt"),
          ],
          { stdio: "ignore" },
        )
      : undefined;
  const perf =
    perfOf && pids[perfOf]
      ? spawn(
          "perf",
          ["record", "-e", "cpu-clock", "-F", "1999", "-g", "-p", String(pids[perfOf]), "-o", join(dir, "perf.data")],
          {
            stdio: "ignore",
          },
        )
      : undefined;
  if (strace || perf) await new Promise((resolve) => setTimeout(resolve, 500));
  const sleepsBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, voluntarySwitches(pid)]));
  const natsBefore = natsMonitor ? await natsCounts() : undefined;
  const redisBefore = redisPort ? redisCalls() : undefined;
  const r = await runWrk({ base, paths, method, seconds, connections, dir }, pids);
  const natsAfter = natsBefore ? await natsCounts() : undefined;
  const redisAfter = redisBefore ? redisCalls() : undefined;
  const sleeps = Object.entries(pids)
    .map(([name, pid]) => `${name} ${((voluntarySwitches(pid) - sleepsBefore[name]!) / r.requests).toFixed(2)}`)
    .join(", ");
  const calls = callsPerRequest(r.calls, r.requests);
  window.to = process.hrtime.bigint() / 1000n;
  if (perf) {
    perf.kill("SIGINT");
    await new Promise((resolve) => perf.once("exit", resolve));
    const report = spawnSync(
      "perf",
      ["report", "-i", join(dir, "perf.data"), "--no-children", "--sort", "sym", "--stdio", "-g", "none"],
      {
        encoding: "utf8",
        maxBuffer: 64 << 20,
      },
    );
    if (process.env.PROFILE_PERF_OUT) writeFileSync(process.env.PROFILE_PERF_OUT, report.stdout);
    console.log(
      `perf samples of ${perfOf}:\n${report.stdout
        .split("\n")
        .filter((l) => l.trim() && !l.startsWith("#"))
        .slice(0, Number(top) * 2)
        .join("\n")}`,
    );
  }
  if (strace) {
    strace.kill("SIGINT");
    await new Promise((resolve) => strace.once("exit", resolve));
    console.log(
      `system calls of ${traced} during ${r.requests} requests:\n${readFileSync(join(dir, "strace.txt"), "utf8")}`,
    );
  }
  console.log(
    `${mode} ${kind}: ${Math.round(r.rate)} req/s, p50 ${r.p50Ms} ms, ${r.errors} errors; ${cpuPerRequest(r.cpuMs, r.requests).line}`,
  );
  // Sleeps (voluntary context switches, all threads) per request: the wake-ups a request costs.
  console.log(`sleeps per request: ${sleeps}; ${idleLine()}`);
  // read and write system calls per request (/proc/PID/io), each process.
  console.log(`system calls per request (reads/writes): ${calls}`);
  if (natsBefore && natsAfter)
    console.log(
      `NATS messages per request: ${((natsAfter.in - natsBefore.in) / r.requests).toFixed(2)} in, ${((natsAfter.out - natsBefore.out) / r.requests).toFixed(2)} out`,
    );
  if (redisBefore && redisAfter)
    console.log(
      `Redis calls per request: ${[...redisAfter]
        .map(([name, calls]) => [name, (calls - (redisBefore.get(name) ?? 0)) / r.requests] as const)
        .filter(([, perRequest]) => perRequest >= 0.001)
        .sort(([, a], [, b]) => b - a)
        .map(([name, perRequest]) => `${name} ${perRequest.toFixed(3)}`)
        .join(", ")}`,
    );
} finally {
  for (const p of processes.reverse()) await p.stop();
  for (const s of servers) await s.stop();
}
for (const name of existsSync(profDir) ? readdirSync(profDir) : []) {
  const file = readdirSync(join(profDir, name)).find((f) => f.endsWith(".cpuprofile"));
  if (!file) continue;
  console.log(`\n==== ${name}`);
  spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      new URL("./test-support/cpuprofile-summary.ts", import.meta.url).pathname,
      join(profDir, name, file),
      top,
    ],
    {
      stdio: "inherit",
      env: { ...process.env, PROFILE_FROM_US: String(window.from), PROFILE_TO_US: String(window.to) },
    },
  );
}
if (process.env.PROFILE_KEEP === "1") console.log(`profiles kept in ${profDir}`);
else rmSync(dir, { recursive: true, force: true });
