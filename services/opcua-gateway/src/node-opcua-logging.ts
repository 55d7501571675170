import { format } from "node:util";
import { setDebugLogger, setErrorLogger, setWarningLogger } from "node-opcua";

export type LogLine = (line: string) => void;

/**
 * node-opcua prints its warnings with console.log, i.e. on stdout, where the process's one ready
 * line must stay alone (harnesses and operators wait for it). Its loggers are process-wide, so the
 * last gateway started decides where they go.
 */
export function routeNodeOpcuaLogs(log: LogLine): void {
  const sink = (level: string) => (_context: unknown, ...args: unknown[]) => log(`node-opcua ${level}: ${format(...args)}`);
  setWarningLogger(sink("warning"));
  setErrorLogger(sink("error"));
  setDebugLogger(sink("debug"));
}
