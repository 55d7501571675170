import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU time a process has used so far (user + system), read from /proc. On this 2-core machine a
 * distributed request costs CPU in five processes at once; CPU per request, per process, says where
 * the throughput goes even when other work makes the rates themselves noisy.
 */
export function processCpuMs(pid: number): number {
  // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/** Runs `work` and returns the CPU milliseconds each named process used meanwhile. */
export async function cpuDuring<T>(
  pids: Record<string, number>,
  work: () => Promise<T>,
): Promise<{ result: T; cpuMs: Record<string, number> }> {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuMs(pid)]));
  const result = await work();
  const cpuMs = Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => [name, processCpuMs(pid) - before[name]!]),
  );
  return { result, cpuMs };
}

/** "gateway 120 µs, model-store 80 µs, …" per request. */
export function formatCpuPerRequest(cpuMs: Record<string, number>, requests: number): string {
  const parts = Object.entries(cpuMs).map(
    ([name, ms]) => `${name} ${Math.round((ms * 1000) / Math.max(requests, 1))} µs`,
  );
  const total = Object.values(cpuMs).reduce((a, b) => a + b, 0);
  return `CPU per request: ${parts.join(", ")}; total ${Math.round((total * 1000) / Math.max(requests, 1))} µs`;
}

/**
 * Times the process's threads went to sleep waiting (voluntary context switches, summed over
 * /proc/PID/task/*): each one is a later wake-up, and on a guest whose idle vCPU halts at once a
 * wake-up from another core costs an inter-processor interrupt (docs/benchmarks.md, "What a
 * wake-up costs"). Per request, it counts the hand-offs a request makes the process wait for.
 */
export function voluntarySwitches(pid: number): number {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${task}/status`, "utf8");
      total += Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1] ?? 0);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return total;
}

/**
 * Read and write system calls the process has made so far (/proc/PID/io: syscr, syscw; sockets
 * included). On this machine a write to a socket another process sleeps on costs a wake-up, so
 * writes per request say how many hand-offs a request costs, whoever batches them; and unlike
 * strace, reading the counters does not slow the process down.
 */
export function socketCalls(pid: number): { reads: number; writes: number; readBytes: number; writtenBytes: number } {
  const io = readFileSync(`/proc/${pid}/io`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)$`, "m").exec(io)?.[1] ?? 0);
  // rchar/wchar: the bytes those calls moved (sockets included), so a hand-off that carries more shows.
  return { reads: field("syscr"), writes: field("syscw"), readBytes: field("rchar"), writtenBytes: field("wchar") };
}
