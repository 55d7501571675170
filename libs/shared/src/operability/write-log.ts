import type { Logger } from "./logger.ts";

/** What the model-store logs of one write (docs/operations.md): enough to follow a request by its id. */
export interface WriteLogEntry {
  command: string;
  correlationId?: string;
  origin?: string;
  ms: number;
  revision?: number;
  code?: string;
}

/**
 * The write lines of one event-loop turn as ONE log line (issue 12, docs/adr/0039): pino's work per
 * line (time, base fields, serialization, the destination) was a sixth of an engine write's CPU,
 * and under load a turn commits many writes. A turn with one write logs the line it always did
 * ("write committed" / "write refused" with the entry's fields); a turn with more logs
 * `{"count":N,"writes":[entry, …]}` "writes", in the order they were answered. Each correlation id
 * is still in the log, so one grep still follows a request into the store. Held for the turn only
 * (setImmediate), like the coalescing destination behind it.
 */
export function writeLog(logger: Logger): (entry: WriteLogEntry) => void {
  let pending: WriteLogEntry[] = [];
  const flush = () => {
    const entries = pending;
    pending = [];
    if (entries.length === 1) {
      const entry = entries[0]!;
      logger.info(entry, entry.code === undefined ? "write committed" : "write refused");
    } else if (entries.length > 1) logger.info({ count: entries.length, writes: entries }, "writes");
  };
  return (entry) => {
    if (pending.push(entry) === 1) setImmediate(flush);
  };
}
