import { type Level, type Logger, pino } from "pino";
import { prettyFactory } from "pino-pretty";
import { coalescingDestination } from "./coalescing-destination.ts";

export type { Logger } from "pino";
export type LogLevel = Level;

/** core.logFormat: `auto` is short human lines on a terminal and JSON lines otherwise (docs/adr/0032). */
export const LOG_FORMATS = ["auto", "pretty", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LoggerOptions {
  role: string;
  level?: LogLevel;
  /** Where lines go; default stderr (fd 2), so stdout keeps only the ready line the harness waits for. */
  destination?: { write(text: string): unknown };
  /** Default `json`; `auto` needs `terminal`. */
  format?: LogFormat;
  /** The destination is a terminal (stderr.isTTY): `auto` then means `pretty`, with colours. */
  terminal?: boolean;
  /**
   * JSON lines of one event-loop turn in one write (a process's stderr: a system call per line cost
   * a sixth of a write's CPU). Off for other destinations, which read each line as it is logged.
   */
  coalesce?: boolean;
}

/** What `auto` means for a destination. */
export function resolveLogFormat(format: LogFormat, terminal: boolean): "pretty" | "json" {
  return format === "auto" ? (terminal ? "pretty" : "json") : format;
}

/**
 * One JSON object per line (pino), with the role on every line, or, for a person at a terminal, one
 * short line per record ("16:04:29 WARN: …", fields on the same line). Both are written
 * synchronously, in this thread: a process that exits right after logging (a failed start,
 * SIGTERM) must not lose its last lines, which a worker-thread transport would (docs/adr/0032).
 * JSON lines of one event-loop turn go out in one write (coalescing-destination.ts, docs/adr/0026;
 * errors at once, `logger.flush()` before exit); a terminal gets each line as it comes.
 */
export function createLogger(options: LoggerOptions): Logger {
  const destination = options.destination ?? pino.destination({ dest: 2, sync: true });
  const pretty = resolveLogFormat(options.format ?? "json", options.terminal ?? false) === "pretty";
  return pino(
    {
      level: options.level ?? "info",
      base: { role: options.role, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    pretty
      ? prettyDestination(destination, options.terminal ?? false)
      : options.coalesce
        ? coalescingDestination(destination)
        : destination,
  );
}

/** pino-pretty's formatter as a plain synchronous stream in front of the destination. */
function prettyDestination(
  destination: { write(text: string): unknown },
  colours: boolean,
): { write(text: string): unknown } {
  const prettify = prettyFactory({
    colorize: colours,
    translateTime: "SYS:HH:MM:ss",
    // One process, one role: the role and pid say nothing on its own terminal.
    ignore: "pid,hostname,role",
    singleLine: true,
  });
  return { write: (line: string) => destination.write(prettify(line)) };
}
