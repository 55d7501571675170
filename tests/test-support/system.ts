/**
 * The system under test, started as real processes through the `twinport` CLI:
 * - embedded: one process (memory repository, in-process bus);
 * - distributed: redis-server + nats-server + one model-store + two http-gateways.
 * Each process prints `twinport <role> ready {json}` when it serves; we wait for that line.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHttpClient, type HttpClient } from "./http-client.ts";
import { freePort, type RunningServer, startNats, startRedis } from "./servers.ts";

export const REPO_ROOT = new URL("../..", import.meta.url).pathname;
export const EXAMPLE_MODEL = join(REPO_ROOT, "examples/model.json");

export type Mode = "embedded" | "distributed";

export interface TwinportProcess {
  role: string;
  child: ChildProcess;
  details: Record<string, unknown>;
  logFile: string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  role?: "embedded" | "model-store" | "http-gateway" | "opcua-gateway";
  args?: string[];
  /** Node flags before the entry point, e.g. `--cpu-prof` when profiling a benchmark. */
  nodeArgs?: string[];
  env?: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
  /**
   * A TypeScript script run (through tsx) instead of bin/twinport.js, taking the same arguments: a
   * test launcher that composes a role with test-only parts (e.g. operation providers).
   */
  launcher?: string;
  /** Told of the process as soon as it is spawned (a test that kills it before it is ready). */
  onSpawn?: (child: ChildProcess) => void;
}

/** Start `node bin/twinport.js [role] args…` and wait for its ready line. */
export async function startTwinport(options: StartOptions = {}): Promise<TwinportProcess> {
  const role = options.role ?? "embedded";
  const cwd = options.cwd ?? mkdtempSync(join(tmpdir(), `twinport-${role}-`));
  const logFile = join(cwd, `${role}.log`);
  // tsx resolved here: the process runs in a temporary directory, where "tsx" names nothing.
  const entry =
    options.launcher === undefined
      ? [join(REPO_ROOT, "bin/twinport.js")]
      : ["--import", import.meta.resolve("tsx"), options.launcher];
  const args = [...(options.nodeArgs ?? []), ...entry, ...(role === "embedded" ? [] : [role]), ...(options.args ?? [])];
  const env = { ...process.env, ...options.env };
  for (const key of Object.keys(env))
    if (key.startsWith("TWINPORT_") && !(options.env && key in options.env)) delete env[key];
  // stdout goes to a file, not a pipe: a pipe would make this (test or benchmark) process read every
  // log line the server writes, and a benchmark would count that work against the server.
  const outFile = join(cwd, `${role}.out`);
  // A restart in the same directory appends: only what this process writes counts.
  const offset = existsSync(outFile) ? statSync(outFile).size : 0;
  const child = spawn(process.execPath, args, {
    cwd,
    env,
    stdio: ["ignore", openSync(outFile, "a"), openSync(logFile, "a")],
  });
  options.onSpawn?.(child);
  const ready = new RegExp(`twinport ${role} ready ?(.*)`);
  const details = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const startedAt = Date.now();
    const poll = setInterval(() => {
      const m = ready.exec(readFrom(outFile, offset));
      if (m) {
        finish();
        try {
          resolve(m[1] ? JSON.parse(m[1].split("\n")[0]) : {});
        } catch {
          resolve({});
        }
      } else if (Date.now() - startedAt > timeoutMs) {
        finish();
        // Not ready means not ours to keep: an orphan would hold its ports and hang the test run.
        child.kill("SIGKILL");
        reject(
          new Error(
            `twinport ${role} not ready within ${timeoutMs} ms; log: ${readLog(logFile)}\nstdout: ${readLog(outFile)}`,
          ),
        );
      }
    }, 20);
    const onExit = (code: number | null) => {
      finish();
      reject(
        new Error(
          `twinport ${role} exited with ${code} before ready; log: ${readLog(logFile)}\nstdout: ${readLog(outFile)}`,
        ),
      );
    };
    const finish = () => {
      clearInterval(poll);
      child.off("exit", onExit);
    };
    child.once("exit", onExit);
  });
  return {
    role,
    child,
    details,
    logFile,
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** What a file holds from byte `offset` on ("" while it does not exist). */
function readFrom(file: string, offset: number): string {
  try {
    return readFileSync(file).subarray(offset).toString("utf8");
  } catch {
    return "";
  }
}

function readLog(file: string): string {
  try {
    return readFileSync(file, "utf8").slice(-4000);
  } catch {
    return "(no log)";
  }
}

/** The persisted self-signed certificate of an HTTP endpoint, found in the process's state dir. */
export function findCertificate(cwd: string): string | undefined {
  const walk = (dir: string): string | undefined => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        const found = walk(path);
        if (found) return found;
      } else if (/cert.*\.pem$/.test(entry.name)) return readFileSync(path, "utf8");
    }
    return undefined;
  };
  return walk(cwd);
}

export interface SystemUnderTest {
  mode: Mode;
  /** One client per HTTP gateway (embedded: one). */
  clients: HttpClient[];
  processes: TwinportProcess[];
  redis?: RunningServer;
  nats?: RunningServer;
  stop(): Promise<void>;
}

function httpConfig(port: number): string {
  return JSON.stringify({
    endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: true }],
  });
}

/** Several HTTP endpoints in one process, each with its own port and extra settings (e.g. profiles). */
function httpEndpointsConfig(ports: number[], endpoints: Record<string, unknown>[]): string {
  return JSON.stringify({
    endpoints: endpoints.map((extra, i) => ({
      "@class": "endpoint.http.HttpEndpoint",
      port: ports[i],
      host: "127.0.0.1",
      sslEnabled: true,
      ...extra,
    })),
  });
}

export interface SystemOptions {
  model?: string;
  gateways?: number;
  /**
   * HTTP endpoints of every gateway process (embedded: of the one process), each given as its extra
   * settings. `clients` then holds one client per endpoint, process after process. Default: one
   * endpoint with the defaults.
   */
  endpoints?: Record<string, unknown>[];
  /** Model files, each passed with -m (embedded, model-store); overrides `model`. [] starts with --empty-model. */
  models?: string[];
  /** Top-level configuration sections (core, fileStorage, …) added to every process's configuration file. */
  config?: Record<string, unknown>;
  /** Distributed: Redis as shipped (AOF, appendfsync always) instead of without persistence (benchmarks). */
  redisAppendOnly?: boolean;
  /** Launcher (see StartOptions.launcher) of the process that runs the engine: embedded, or the model-store. */
  engineLauncher?: string;
}

export async function startSystem(mode: Mode, options: SystemOptions = {}): Promise<SystemUnderTest> {
  const model = options.model ?? EXAMPLE_MODEL;
  const modelArgs =
    options.models === undefined
      ? ["-m", model]
      : options.models.length === 0
        ? ["--empty-model"]
        : options.models.flatMap((file) => ["-m", file]);
  const withConfig = (json: string): string => JSON.stringify({ ...options.config, ...JSON.parse(json) });
  const processes: TwinportProcess[] = [];
  const clients: HttpClient[] = [];
  const dirs: string[] = [];
  let redis: RunningServer | undefined;
  let nats: RunningServer | undefined;
  const stop = async () => {
    for (const c of clients) c.close();
    await Promise.all(processes.map((p) => p.stop()));
    await redis?.stop();
    await nats?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  };
  try {
    const gateway = async (role: "embedded" | "http-gateway", extra: string[], env: Record<string, string> = {}) => {
      const launcher = role === "embedded" ? options.engineLauncher : undefined;
      const cwd = mkdtempSync(join(tmpdir(), `twinport-${role}-`));
      dirs.push(cwd);
      if (options.endpoints === undefined) {
        const port = await freePort();
        writeFileSync(join(cwd, "config.json"), withConfig(httpConfig(port)));
        const proc = await startTwinport({ role, cwd, args: ["-c", "config.json", ...extra], env, launcher });
        processes.push(proc);
        clients.push(createHttpClient(`https://127.0.0.1:${port}/api/v3.0`, { ca: findCertificate(cwd) }));
        return;
      }
      const ports: number[] = [];
      for (let i = 0; i < options.endpoints.length; i++) ports.push(await freePort());
      writeFileSync(join(cwd, "config.json"), withConfig(httpEndpointsConfig(ports, options.endpoints)));
      processes.push(await startTwinport({ role, cwd, args: ["-c", "config.json", ...extra], env, launcher }));
      const ca = findCertificate(cwd);
      for (const port of ports) clients.push(createHttpClient(`https://127.0.0.1:${port}/api/v3.0`, { ca }));
    };
    if (mode === "embedded") {
      await gateway("embedded", [...modelArgs, "--endpoint", "http"]);
    } else {
      redis = await startRedis({ appendOnly: options.redisAppendOnly === true });
      nats = await startNats();
      const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
      const storeDir = mkdtempSync(join(tmpdir(), "twinport-model-store-"));
      dirs.push(storeDir);
      if (options.config) writeFileSync(join(storeDir, "config.json"), JSON.stringify(options.config));
      const storeArgs = options.config ? ["-c", "config.json", ...modelArgs] : modelArgs;
      processes.push(
        await startTwinport({
          role: "model-store",
          cwd: storeDir,
          args: storeArgs,
          env,
          launcher: options.engineLauncher,
        }),
      );
      for (let i = 0; i < (options.gateways ?? 2); i++) await gateway("http-gateway", [], env);
    }
    return { mode, clients, processes, redis, nats, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
