import { readdirSync, readFileSync } from "node:fs";

/** Resident set size of a process in bytes (0 when it is gone). */
export function rssBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** A window of time in which the peak RSS of every child process is kept. */
export interface PeakWindow {
  /** Highest RSS (bytes) seen in this window of the children whose command line `matches`. */
  peak(matches: (commandLine: string) => boolean): number;
  /** Highest RSS (bytes) seen in this window of one process. */
  peakOf(pid: number): number;
  close(): void;
}

/**
 * Samples the RSS of every direct child of this process every `intervalMs` from /proc. A child
 * that runs out of memory before it is ready is never handed to us by its starter (no PID), so its
 * peak is found by its command line (the role in `twinport.js <role>`).
 */
export function watchChildren(intervalMs = 200) {
  const commandLines = new Map<number, string>();
  const windows = new Set<Map<number, number>>();
  const alive = new Set<number>();
  const sample = () => {
    let entries: string[];
    try {
      entries = readdirSync("/proc");
    } catch {
      return;
    }
    alive.clear();
    for (const entry of entries) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      } catch {
        continue;
      }
      // ppid is the second field after the command name (which may hold spaces and parentheses).
      const ppid = Number(stat.slice(stat.lastIndexOf(") ") + 2).split(" ")[1]);
      if (ppid !== process.pid) continue;
      alive.add(pid);
      if (!commandLines.has(pid)) {
        try {
          commandLines.set(pid, readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" "));
        } catch {
          continue;
        }
      }
      const rss = rssBytes(pid);
      for (const window of windows) window.set(pid, Math.max(window.get(pid) ?? 0, rss));
    }
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    window(): PeakWindow {
      const peaks = new Map<number, number>();
      windows.add(peaks);
      sample();
      return {
        peak(matches) {
          sample();
          let max = 0;
          for (const [pid, rss] of peaks) if (matches(commandLines.get(pid) ?? "")) max = Math.max(max, rss);
          return max;
        },
        peakOf(pid) {
          sample();
          return peaks.get(pid) ?? 0;
        },
        close: () => windows.delete(peaks),
      };
    },
    /** The PIDs of this process's children now. */
    children(): number[] {
      sample();
      return [...alive];
    },
    stop: () => clearInterval(timer),
  };
}

/** Matches the command line of `node bin/twinport.js <role> …`; role "embedded" has no role word. */
export function twinportRole(role: string): (commandLine: string) => boolean {
  const roles = ["model-store", "http-gateway", "opcua-gateway"];
  return (commandLine) => {
    if (!commandLine.includes("twinport.js")) return false;
    const words = commandLine.split(" ");
    return role === "embedded" ? !roles.some((r) => words.includes(r)) : words.includes(role);
  };
}
