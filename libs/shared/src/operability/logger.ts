import { type Level, type Logger, pino } from "pino";

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
 * synchronous for files and pipes on Linux): a process that exits right after logging (a failed
 * start, SIGTERM) must not lose its last lines.
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? "info",
      base: { role: options.role, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination ?? pino.destination({ dest: 2, sync: true }),
  );
}
