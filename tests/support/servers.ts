/**
 * Real Redis and NATS servers for tests: each call starts a fresh server on a free loopback port
 * with its own temp dir, and `stop()` kills it by PID. No mocks of our infrastructure.
 * Binaries come from Debian's redis-server and nats-server (scripts/ensure-servers.sh installs them).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, openSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, connect } from "node:net";

export interface RunningServer {
  url: string;
  port: number;
  pid: number;
  dir: string;
  stop(): Promise<void>;
}

/** Debian puts nats-server in /usr/sbin, which is not on every user's PATH. */
export function serverBinary(name: "redis-server" | "nats-server"): string {
  for (const dir of (process.env.PATH ?? "").split(":").concat(["/usr/sbin", "/usr/bin", "/usr/local/bin"])) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  throw new Error(`${name} is not installed: run 'bash scripts/ensure-servers.sh' (as root it installs the Debian packages redis-server and nats-server)`);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode} before listening`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${what} did not listen on port ${port} within ${timeoutMs} ms`);
}

function stopper(child: ChildProcess, dir: string): () => Promise<void> {
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
}

export interface RedisOptions {
  /** Persist with AOF and appendfsync always (fault tests). Default: no persistence. */
  appendOnly?: boolean;
  port?: number;
  dir?: string;
}

export async function startRedis(options: RedisOptions = {}): Promise<RunningServer> {
  const port = options.port ?? (await freePort());
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "twinport-redis-"));
  const log = openSync(join(dir, "redis.log"), "a");
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir, "--daemonize", "no"];
  args.push(...(options.appendOnly ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"]));
  const child = spawn(serverBinary("redis-server"), args, { stdio: ["ignore", log, log] });
  await waitForPort(port, child, "redis-server");
  return { url: `redis://127.0.0.1:${port}`, port, pid: child.pid!, dir, stop: stopper(child, dir) };
}

export interface NatsOptions {
  port?: number;
  dir?: string;
}

export async function startNats(options: NatsOptions = {}): Promise<RunningServer & { monitorPort: number }> {
  const port = options.port ?? (await freePort());
  const monitorPort = await freePort();
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "twinport-nats-"));
  const log = openSync(join(dir, "nats.log"), "a");
  const args = ["-a", "127.0.0.1", "-p", String(port), "-m", String(monitorPort), "-js", "-sd", join(dir, "js")];
  const child = spawn(serverBinary("nats-server"), args, { stdio: ["ignore", log, log] });
  await waitForPort(port, child, "nats-server");
  return { url: `nats://127.0.0.1:${port}`, port, monitorPort, pid: child.pid!, dir, stop: stopper(child, dir) };
}
