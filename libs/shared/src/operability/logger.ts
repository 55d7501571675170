import { type Level, type Logger, pino } from "pino";
import { coalescingDestination } from "./coalescing-destination.ts";

export type { Logger } from "pino";
export type LogLevel = Level;

export interface LoggerOptions {
  role: string;
  level?: LogLevel;
  /** Where lines go; default stderr (fd 2), so stdout keeps only the ready line the harness waits for. */
  destination?: { write(text: string): unknown };
}

/**
 * One JSON object per line (pino), with the role on every line. Written synchronously (stderr is
 * synchronous for files and pipes on Linux), the lines of one event-loop turn in one write
 * (coalescing-destination.ts): a process that exits right after logging (a failed start, SIGTERM)
 * must not lose its last lines, so errors go out at once and `logger.flush()` runs before exit.
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? "info",
      base: { role: options.role, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    coalescingDestination(options.destination ?? pino.destination({ dest: 2, sync: true })),
  );
}
