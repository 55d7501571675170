/**
 * Test support: runs `node bin/twinport.js …` as a real process, the way users and the test
 * harness do, and waits for its ready line.
 */
import { type ChildProcess, spawn } from "node:child_process";

const BIN = new URL("../twinport.js", import.meta.url).pathname;

export interface TwinportProcess {
  child: ChildProcess;
  /** The JSON details of the ready line; rejects when the process exits first or times out. */
  ready: Promise<Record<string, unknown>>;
  /** Exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

// These tests are about the ready line and stderr: the management port (tests/operability.test.ts)
// stays off, so a busy 9464 on the machine adds no fallback warning to stderr.
const MANAGEMENT_OFF = { TWINPORT_CORE_MANAGEMENTPORT: "-1" };

export function spawnTwinport(
  args: string[],
  options: {
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    readyTimeoutMs?: number;
    /** Another copy of bin/twinport.js to run (e.g. the image's files assembled by tests/deployment.test.ts). */
    bin?: string;
  } = {},
): TwinportProcess {
  // Only what the test gives: a developer's own TWINPORT_* variables must not leak in.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("TWINPORT_")));
  const child = spawn(process.execPath, [options.bin ?? BIN, ...args], {
    cwd: options.cwd,
    env: { ...env, ...MANAGEMENT_OFF, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ready line within ${options.readyTimeoutMs ?? 20_000} ms; stderr: ${stderr}`)),
      options.readyTimeoutMs ?? 20_000,
    );
    const check = () => {
      const match = /^twinport \S+ ready (\{.*\})$/m.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off("data", check);
      resolve(JSON.parse(match[1]!));
    };
    child.stdout!.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready; stderr: ${stderr}`));
    });
  });
  ready.catch(() => undefined); // callers that only wait for the exit need not handle it
  return {
    child,
    ready,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
