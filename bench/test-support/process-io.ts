import { readFileSync } from "node:fs";

/**
 * Read and write system calls a process has made so far (`syscr` + `syscw` of /proc/<pid>/io; all
 * its threads). A count does not depend on how busy the machine is, unlike the time they take, so it
 * shows batching (e.g. one socket write per turn instead of per packet) where CPU figures are noise.
 */
export function processSyscalls(pid: number): number {
  const io = readFileSync(`/proc/${pid}/io`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(io)?.[1] ?? Number.NaN);
  return field("syscr") + field("syscw");
}
