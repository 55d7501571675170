import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpuDuring, processCpuMs, socketCalls } from "./process-cpu.ts";

/**
 * HTTP load from wrk (Debian package `wrk`): a C load generator spends a few µs of CPU per request,
 * where a Node client spends as much as the server it drives and hides the gap between variants.
 */
export interface WrkOptions {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:8080/api/v3.0 */
  base: string;
  /** Paths below base, requested in turn (one connection's requests walk the list round robin). */
  paths: string[];
  method?: "GET" | "PATCH";
  /** Body of request number i (PATCH); wrk's Lua builds it, so keep it a number in text form. */
  patchBodies?: "counter";
  seconds: number;
  connections: number;
  /** Folder for wrk's Lua script. */
  dir: string;
  /** Headers of every GET (e.g. Authorization). */
  headers?: Record<string, string>;
}

export interface WrkResult {
  requests: number;
  rate: number;
  p50Ms: number;
  p99Ms: number;
  /** Non-2xx/3xx answers plus socket errors: a run with errors is not a valid figure. */
  errors: number;
  /** CPU milliseconds each named process used during the run (wrk included). */
  cpuMs: Record<string, number>;
  /** Read and write system calls each server process made during the run, and their bytes (/proc/PID/io). */
  calls: Record<string, { reads: number; writes: number; readBytes: number; writtenBytes: number }>;
}

let scripts = 0;

function luaScript(options: WrkOptions): string {
  const method = options.method ?? "GET";
  const list = options.paths.map((p) => `"${p.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(",\n  ");
  const headers = Object.entries(options.headers ?? {})
    .map(([name, value]) => `["${name}"] = "${value.replace(/["\\]/g, (c) => `\\${c}`)}"`)
    .join(", ");
  // Each wrk thread has its own Lua state; the counter starts at a thread-specific offset so two
  // threads do not write the same values in step.
  return `
local paths = {
  ${list}
}
local n = 0
local base = "${new URL(options.base).pathname}"
local method = "${method}"
request = function()
  n = n + 1
  local path = base .. paths[(n % #paths) + 1]
  if method == "PATCH" then
    return wrk.format("PATCH", path, { ["Content-Type"] = "application/json" }, tostring(n % 100000))
  end
  return wrk.format("GET", path, { ${headers} })
end
`;
}

function parseDuration(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!m) return NaN;
  const v = Number(m[1]);
  return m[2] === "us" ? v / 1000 : m[2] === "ms" ? v : m[2] === "s" ? v * 1000 : v * 60_000;
}

/** Runs wrk once and measures the CPU of `pids` (plus wrk itself) meanwhile. */
export async function runWrk(options: WrkOptions, pids: Record<string, number>): Promise<WrkResult> {
  const script = `${options.dir}/wrk-${process.pid}-${++scripts}.lua`;
  writeFileSync(script, luaScript(options));
  const url = new URL(options.base);
  const args = [
    "-t1",
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    "--latency",
    "-s",
    script,
    `${url.protocol}//${url.host}`,
  ];
  let wrkPid = 0;
  const callsOf = () =>
    Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, socketCalls(pid)] as const));
  const callsBefore = callsOf();
  const { result, cpuMs } = await cpuDuring(pids, async () => {
    const child = spawn("wrk", args, { stdio: ["ignore", "pipe", "pipe"] });
    wrkPid = child.pid!;
    let out = "";
    let wrkCpu = 0;
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    // wrk's own CPU, sampled while it runs (its /proc entry goes when it exits).
    const sampler = setInterval(() => {
      try {
        wrkCpu = processCpuMs(wrkPid);
      } catch {
        /* exited */
      }
    }, 50);
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    clearInterval(sampler);
    if (code !== 0) throw new Error(`wrk exited with ${code}: ${out}`);
    return { out, wrkCpu };
  });
  const callsAfter = callsOf();
  const calls = Object.fromEntries(
    Object.entries(callsAfter).map(([name, after]) => [
      name,
      {
        reads: after.reads - callsBefore[name]!.reads,
        writes: after.writes - callsBefore[name]!.writes,
        readBytes: after.readBytes - callsBefore[name]!.readBytes,
        writtenBytes: after.writtenBytes - callsBefore[name]!.writtenBytes,
      },
    ]),
  );
  const out = result.out;
  const rate = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN);
  // Lines of the "Latency Distribution" block only: the thread stats' "+/- Stdev" column (e.g.
  // "82.50%") also ends in "50%" or "99%", and matching it gave NaN or another column's value.
  const p50Ms = parseDuration(/^\s+50%\s+(\S+)$/m.exec(out)?.[1] ?? "");
  const p99Ms = parseDuration(/^\s+99%\s+(\S+)$/m.exec(out)?.[1] ?? "");
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  return {
    requests,
    rate,
    p50Ms,
    p99Ms,
    errors: non2xx + socketErrors,
    cpuMs: { ...cpuMs, wrk: result.wrkCpu },
    calls,
  };
}

/** "http-gateway 120 µs, model-store 80 µs, …; total 250 µs (server side 240 µs)" per request. */
export function cpuPerRequest(cpuMs: Record<string, number>, requests: number): { line: string; serverUs: number } {
  const per = (ms: number) => (ms * 1000) / Math.max(requests, 1);
  const parts = Object.entries(cpuMs).map(([name, ms]) => `${name} ${Math.round(per(ms))} µs`);
  const serverUs = Object.entries(cpuMs)
    .filter(([name]) => name !== "wrk")
    .reduce((a, [, ms]) => a + per(ms), 0);
  return { line: `CPU/request: ${parts.join(", ")}; server side ${Math.round(serverUs)} µs`, serverUs };
}

/** "gateway 1.02/1.10 (310/420 B), …": read/write system calls and their bytes per request of each server process. */
export function callsPerRequest(calls: WrkResult["calls"], requests: number): string {
  return Object.entries(calls)
    .map(
      ([name, { reads, writes, readBytes, writtenBytes }]) =>
        `${name} ${(reads / Math.max(requests, 1)).toFixed(2)}/${(writes / Math.max(requests, 1)).toFixed(2)}` +
        ` (${Math.round(readBytes / Math.max(requests, 1))}/${Math.round(writtenBytes / Math.max(requests, 1))} B)`,
    )
    .join(", ");
}
