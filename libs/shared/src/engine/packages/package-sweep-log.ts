import type { PackageSweepReport } from "./stale-package-intents.ts";

/**
 * The log line of a package write a sweep settled: the removal of a dead write's content (or the
 * rest of a dead DELETE's) must leave a trace where an operator looks for why data went. Warn when
 * content went, info when the write had completed and only its intent was left.
 */
export function packageSweepLine(report: PackageSweepReport): { level: "warn" | "info"; message: string } {
  if (report.outcome === "completed")
    return { level: "info", message: "an interrupted package write had completed; its leftover intent was removed" };
  if (report.write === "delete")
    return {
      level: "warn",
      message: "finished an interrupted package DELETE: the rest of its content and the package were removed",
    };
  return {
    level: "warn",
    message: `rolled back an interrupted package ${report.write.toUpperCase()}: what it had written was removed${report.write === "put" ? ", and the package with it (its old content was already gone)" : ""}`,
  };
}
