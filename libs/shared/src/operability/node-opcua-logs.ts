import { format, stripVTControlCharacters } from "node:util";
import type { Logger } from "pino";

/** node-opcua's logger setters (node-opcua and node-opcua-client export them); passed in, so this file imports no node-opcua. */
export interface NodeOpcuaLoggerSetters {
  setErrorLogger(log: (...args: unknown[]) => void): void;
  setWarningLogger(log: (...args: unknown[]) => void): void;
  setDebugLogger(log: (...args: unknown[]) => void): void;
}

/** What node-opcua passes first to each logger: the calling source file's base name and line. */
interface CallerContext {
  filename?: string;
  callerline?: number;
}

type Level = "error" | "warn" | "debug";

/**
 * node-opcua's own warnings are chatter for an operator (26 "bindExtensionObject" lines on every
 * start of the example model, notices about its defaults): they are logged at debug, with
 * `opcuaLevel: "warn"` so they can still be picked out (issue 16, docs/adr/0032). Its errors stay
 * errors; what matters to Twinport reaches the log through Twinport's own lines anyway.
 */
const OUR_LEVEL: Readonly<Record<Level, "error" | "debug">> = { error: "error", warn: "debug", debug: "debug" };

/**
 * Except the warnings of node-opcua's client modules (`client_base_impl`, …): they run only for
 * Twinport's OPC UA asset connections, and say what an operator must act on ("[NODE-OPCUA-W25]
 * client's server certificate verification has failed": move the device's certificate from
 * pki/rejected to pki/trusted). Those stay warnings.
 */
function ourLevel(level: Level, module: string): "error" | "warn" | "debug" {
  return level === "warn" && module.startsWith("client") ? "warn" : OUR_LEVEL[level];
}

/**
 * node-opcua's own loggers stop after this many lines from one place (a warning in a loop would
 * otherwise flood the log); replacing them drops that cap, so it is kept here.
 */
const MAX_LINES_PER_PLACE = 100;

/**
 * Sends node-opcua's log lines to `logger`: its errors at error, its warnings and debug lines at
 * debug (see OUR_LEVEL; debug lines only exist for the modules named in DEBUG). Each node-opcua
 * module (its source file, e.g. `monitored_item`) gets a child logger `{component: "node-opcua",
 * module}`, and each line carries the source `line`, so an operator can filter one component.
 * By default node-opcua prints with console.log, i.e. on stdout, where a process's one ready line
 * must stay alone. Its loggers are process-wide: the last call decides where they go.
 */
export function routeNodeOpcuaLogs(logger: Logger, setters: NodeOpcuaLoggerSetters): void {
  const root = logger.child({ component: "node-opcua" });
  const modules = new Map<string, Logger>();
  const linesPerPlace = new Map<string, number>();

  const loggerOf = (module: string): Logger => {
    let child = modules.get(module);
    if (child === undefined) modules.set(module, (child = root.child({ module })));
    return child;
  };

  const sink =
    (level: Level) =>
    (context: unknown, ...args: unknown[]): void => {
      const caller = (context ?? {}) as CallerContext;
      // Full paths (setDebugFlag passes one) and extensions say nothing more than the base name.
      const module = (caller.filename ?? "").replace(/.*[\\/]/, "").replace(/\.(js|ts)$/, "") || "node-opcua";
      const target = loggerOf(module);
      const ours = ourLevel(level, module);
      if (!target.isLevelEnabled(ours)) return;
      const place = `${module}:${caller.callerline}`;
      const count = (linesPerPlace.get(place) ?? 0) + 1;
      if (level !== "debug") {
        linesPerPlace.set(place, count);
        if (count > MAX_LINES_PER_PLACE) return;
      }
      const fields = {
        ...(caller.callerline === undefined || caller.callerline < 0 ? {} : { line: caller.callerline }),
        ...(level === "warn" ? { opcuaLevel: level } : {}),
      };
      // chalk colours node-opcua's text when stderr is a terminal; a JSON log line has no use for them.
      target[ours](fields, stripVTControlCharacters(format(...args)));
      if (level !== "debug" && count === MAX_LINES_PER_PLACE)
        target[ours](fields, `${MAX_LINES_PER_PLACE} lines from this place; no more are logged from it`);
    };

  setters.setErrorLogger(sink("error"));
  setters.setWarningLogger(sink("warn"));
  setters.setDebugLogger(sink("debug"));
}
