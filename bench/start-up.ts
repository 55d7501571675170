/**
 * Issue 17 benchmark: what starting a process costs, per role, the way every process ran before
 * (the TypeScript sources through tsx) and the way production runs now (the compiled dist/,
 * docs/adr/0021), in one run.
 *
 * Per role: start to ready (spawn until the process prints its ready line, the moment its
 * management port's /ready turns 200), the CPU time it used until then (user + system, /proc) and
 * its RSS at that moment. Roles: embedded (HTTPS + OPC UA serving the example model: `npm start`),
 * model-store (Redis and NATS started here on loopback; the model seeded once), http-gateway and
 * opcua-gateway (served by a compiled model-store that stays up). And `twinport --help`: wall time,
 * CPU and peak RSS (/usr/bin/time), before (tsx, the whole embedded role loaded to print it), with
 * tsx now (the command-line parser only) and compiled.
 *
 * Each role starts once untimed (certificates and PKI made, files in the page cache); then the two
 * ways alternate, BENCH_ROUNDS times (default 3), and the figures are medians. This machine's
 * speed drifts with other work: compare the two columns of one run, not runs with each other.
 *
 * Run: npm run bench -- start-up
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, type RunningServer, startNats, startRedis } from "../tests/test-support/servers.ts";
import { EXAMPLE_MODEL, REPO_ROOT, startTwinport, type TwinportProcess } from "../tests/test-support/system.ts";
import { median } from "./test-support/bench-setup.ts";
import { processCpuMs } from "./test-support/process-cpu.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const SOURCES = process.env.NODE_OPTIONS ?? "";
if (!/--conditions=twinport-source/.test(SOURCES))
  throw new Error("run through npm run bench (scripts/bench.sh sets the sources mode)");
/** NODE_OPTIONS of each way: the sources through tsx (as scripts/bench.sh runs this file), or none (dist/). */
const WAYS = { "tsx (before)": SOURCES, "compiled (now)": "" } as const;
type Way = keyof typeof WAYS;
type Role = "embedded" | "model-store" | "http-gateway" | "opcua-gateway";

interface Sample {
  readyMs: number;
  cpuMs: number;
  rssMb: number;
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB$/m);
  return Number(line?.[1] ?? 0) / 1024;
}

const root = mkdtempSync(join(tmpdir(), "twinport-bench-start-up-"));
const servers: RunningServer[] = [];
const running: TwinportProcess[] = [];

/** One folder per role, kept across its starts: the certificate or PKI made in the untimed start is reused. */
async function roleSetup(
  role: Role,
  env: Record<string, string>,
): Promise<{ cwd: string; args: string[]; env: Record<string, string> }> {
  const cwd = join(root, role);
  execFileSync("mkdir", ["-p", cwd]);
  const https = { "@class": "endpoint.http.HttpEndpoint", port: await freePort(), host: "127.0.0.1", sslEnabled: true };
  const opcua = {
    "@class": "endpoint.opcua.OpcUaEndpoint",
    tcpPort: await freePort(),
    host: "127.0.0.1",
    hostname: "127.0.0.1",
    secondsTillShutdown: 0,
    serverCertificateBasePath: join(cwd, "PKI/CA"),
    userCertificateBasePath: join(cwd, "USERS_PKI/CA"),
  };
  const endpoints =
    role === "embedded" ? [https, opcua] : role === "http-gateway" ? [https] : role === "opcua-gateway" ? [opcua] : [];
  writeFileSync(join(cwd, "config.json"), JSON.stringify({ core: { stateDir: join(cwd, "state") }, endpoints }));
  const models = role === "embedded" || role === "model-store" ? ["-m", EXAMPLE_MODEL] : [];
  return { cwd, args: ["-c", "config.json", ...models], env: { ...env, XDG_CONFIG_HOME: join(cwd, "xdg") } };
}

async function startOnce(
  role: Role,
  setup: { cwd: string; args: string[]; env: Record<string, string> },
  way: Way,
): Promise<Sample> {
  const startedAt = performance.now();
  const proc = await startTwinport({
    role,
    cwd: setup.cwd,
    args: setup.args,
    env: { ...setup.env, NODE_OPTIONS: WAYS[way] },
    timeoutMs: 120_000,
  });
  const readyMs = performance.now() - startedAt;
  const pid = proc.child.pid!;
  const sample = { readyMs, cpuMs: processCpuMs(pid), rssMb: rssMb(pid) };
  const code = await proc.stop();
  if (code !== 0) throw new Error(`twinport ${role} (${way}) exited with ${code}; log: ${proc.logFile}`);
  return sample;
}

async function measureRole(role: Role, env: Record<string, string>): Promise<Record<Way, Sample[]>> {
  const setup = await roleSetup(role, env);
  await startOnce(role, setup, "compiled (now)"); // untimed: certificates, PKI, the model seeded, warm page cache
  const samples: Record<Way, Sample[]> = { "tsx (before)": [], "compiled (now)": [] };
  for (let round = 0; round < rounds; round++) {
    // Alternate which way goes first, so a drift of the machine's speed does not favour one.
    const order: Way[] = round % 2 === 0 ? ["tsx (before)", "compiled (now)"] : ["compiled (now)", "tsx (before)"];
    for (const way of order) samples[way].push(await startOnce(role, setup, way));
  }
  return samples;
}

/** `twinport --help` under /usr/bin/time: wall ms, CPU ms, peak RSS MB. */
function helpTimed(args: string[], nodeOptions: string): Sample {
  const run = spawnSync("/usr/bin/time", ["-f", "TIME %e %U %S %M", process.execPath, ...args, "--help"], {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
    encoding: "utf8",
    stdio: ["ignore", "ignore", "pipe"],
  });
  const measured = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(run.stderr);
  if (run.status !== 0 || !measured) throw new Error(`--help failed (${run.status}): ${run.stderr}`);
  const [, elapsed, user, system, maxKb] = measured;
  return {
    readyMs: Number(elapsed) * 1000,
    cpuMs: (Number(user) + Number(system)) * 1000,
    rssMb: Number(maxKb) / 1024,
  };
}

function row(label: string, samples: Sample[]): string {
  const m = (pick: (sample: Sample) => number) => median(samples.map(pick));
  return `${label.padEnd(34)} ${`${(m((s) => s.readyMs) / 1000).toFixed(2)} s`.padStart(9)} ${`${(m((s) => s.cpuMs) / 1000).toFixed(2)} s`.padStart(9)} ${`${Math.round(m((s) => s.rssMb))} MB`.padStart(8)}`;
}

try {
  console.log(
    `start-up: ${rounds} round(s), medians; ${process.version}, ${execFileSync("nproc", { encoding: "utf8" }).trim()} cores, load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
  );
  console.log(`${"".padEnd(34)} ${"ready".padStart(9)} ${"CPU".padStart(9)} ${"RSS".padStart(8)}`);

  const help: Record<string, Sample[]> = {
    "--help, tsx, whole role (before)": [],
    "--help, tsx, parser only": [],
    "--help, compiled (now)": [],
  };
  helpTimed([join(REPO_ROOT, "bin/twinport.js")], ""); // untimed
  for (let round = 0; round < Math.max(rounds, 3); round++) {
    // Before: bin/twinport.js loaded the CLI, which started the embedded role's program to print the help.
    help["--help, tsx, whole role (before)"]!.push(helpTimed([join(REPO_ROOT, "bin/cli.ts")], SOURCES));
    help["--help, tsx, parser only"]!.push(helpTimed([join(REPO_ROOT, "bin/twinport.js")], SOURCES));
    help["--help, compiled (now)"]!.push(helpTimed([join(REPO_ROOT, "bin/twinport.js")], ""));
  }
  for (const [label, samples] of Object.entries(help)) console.log(row(label, samples));

  const show = (role: Role, samples: Record<Way, Sample[]>) => {
    for (const way of Object.keys(WAYS) as Way[]) console.log(row(`${role}, ${way}`, samples[way]));
  };
  show("embedded", await measureRole("embedded", {}));

  const redis = await startRedis();
  servers.push(redis);
  const nats = await startNats();
  servers.push(nats);
  const distributed = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
  show("model-store", await measureRole("model-store", distributed));
  // The gateways answer /ready once they reach a model-store: one stays up, compiled, for them.
  const storeSetup = await roleSetup("model-store", distributed);
  running.push(
    await startTwinport({
      role: "model-store",
      cwd: storeSetup.cwd,
      args: storeSetup.args,
      env: { ...storeSetup.env, NODE_OPTIONS: "" },
    }),
  );
  show("http-gateway", await measureRole("http-gateway", distributed));
  show("opcua-gateway", await measureRole("opcua-gateway", distributed));
} finally {
  for (const proc of running) await proc.stop();
  for (const server of servers) await server.stop();
  rmSync(root, { recursive: true, force: true });
}
