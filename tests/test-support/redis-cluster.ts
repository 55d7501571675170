/**
 * A real 3-node Redis Cluster for tests (docs/redis-cluster.md, ADR 0040): three redis-servers
 * with `--cluster-enabled yes` on free loopback ports, joined by `redis-cli --cluster create` (no
 * replicas), ready once every node says `cluster_state:ok`. Persisted as shipped (AOF, appendfsync
 * always). `stop()` kills the nodes by PID; `stopNode(i)` / `startNode(i)` take one node away and
 * bring it back on the same port and directory (fault tests). redis-cli comes with Debian's
 * redis-server package (redis-tools), which scripts/ensure-servers.sh installs.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort, serverBinary, waitForPort } from "./servers.ts";

const run = promisify(execFile);

export interface RunningRedisCluster {
  /** `redis://127.0.0.1:<port>` of every node, in start order. */
  nodes: string[];
  ports: number[];
  pids(): number[];
  /** Stops node i (SIGKILL when `kill`), keeping its directory. */
  stopNode(i: number, kill?: boolean): Promise<void>;
  /** Starts node i again on its port and directory, and waits for `cluster_state:ok`. */
  startNode(i: number): Promise<void>;
  /** Runs redis-cli against node i (e.g. `CLUSTER`, `KEYSLOT`); returns stdout. */
  cli(i: number, ...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

function redisCli(): string {
  const server = serverBinary("redis-server");
  const cli = join(server, "..", "redis-cli");
  if (!existsSync(cli))
    throw new Error("redis-cli is not installed (Debian: redis-tools, which redis-server depends on)");
  return cli;
}

export interface RedisClusterOptions {
  /** Nodes; default 3. */
  size?: number;
  /**
   * `cluster-require-full-coverage`: Redis' default (true) stops the whole cluster while a slot
   * has no node; false keeps the other nodes serving (the fault tests that take one node away).
   */
  fullCoverage?: boolean;
}

export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RunningRedisCluster> {
  const size = options.size ?? 3;
  const cli = redisCli();
  const root = mkdtempSync(join(tmpdir(), "twinport-redis-cluster-"));
  const ports: number[] = [];
  for (let i = 0; i < size; i++) ports.push(await freePort());
  const children: (ChildProcess | undefined)[] = [];

  const spawnNode = async (i: number) => {
    const dir = join(root, `node-${i}`);
    if (!existsSync(dir)) mkdirSync(dir);
    const log = openSync(join(dir, "redis.log"), "a");
    const args = [
      "--port",
      String(ports[i]),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--daemonize",
      "no",
      "--save",
      "",
      "--cluster-enabled",
      "yes",
      "--cluster-config-file",
      join(dir, "nodes.conf"),
      "--cluster-node-timeout",
      "2000",
      "--appendonly",
      "yes",
      "--appendfsync",
      "always",
      "--cluster-require-full-coverage",
      options.fullCoverage === false ? "no" : "yes",
    ];
    const child = spawn(serverBinary("redis-server"), args, { stdio: ["ignore", log, log] });
    children[i] = child;
    await waitForPort(ports[i]!, child, `redis-server (cluster node ${i})`);
  };

  const cliOn = async (i: number, ...args: string[]) =>
    (await run(cli, ["-h", "127.0.0.1", "-p", String(ports[i]), ...args])).stdout;

  const waitOk = async (timeoutMs = 20_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      let ok = 0;
      for (let i = 0; i < size; i++) {
        if (!children[i] || children[i]!.exitCode !== null) continue;
        const info = await cliOn(i, "CLUSTER", "INFO").catch(() => "");
        if (info.includes("cluster_state:ok")) ok++;
      }
      if (ok === children.filter((c) => c && c.exitCode === null).length) return;
      if (Date.now() > until)
        throw new Error(`Redis Cluster on ports ${ports.join(", ")} not ok within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const stopChild = async (i: number, kill = false) => {
    const child = children[i];
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill(kill ? "SIGKILL" : "SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
    await exited;
    clearTimeout(timer);
  };

  try {
    for (let i = 0; i < size; i++) await spawnNode(i);
    await run(cli, [
      "--cluster",
      "create",
      ...ports.map((p) => `127.0.0.1:${p}`),
      "--cluster-replicas",
      "0",
      "--cluster-yes",
    ]);
    await waitOk();
  } catch (error) {
    for (let i = 0; i < size; i++) await stopChild(i, true);
    rmSync(root, { recursive: true, force: true });
    throw error;
  }

  return {
    nodes: ports.map((p) => `redis://127.0.0.1:${p}`),
    ports,
    pids: () => children.map((c) => c?.pid ?? 0),
    stopNode: (i, kill) => stopChild(i, kill),
    async startNode(i) {
      await spawnNode(i);
      await waitOk();
    },
    cli: cliOn,
    async stop() {
      for (let i = 0; i < size; i++) await stopChild(i);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
