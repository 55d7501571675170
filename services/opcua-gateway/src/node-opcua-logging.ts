import { type Logger, routeNodeOpcuaLogs } from "@twinport/shared";
import { setDebugLogger, setErrorLogger, setWarningLogger } from "node-opcua";

export type LogLine = (line: string) => void;

/**
 * node-opcua's errors, warnings and debug lines as pino lines at their own levels, one child
 * logger per node-opcua module (see routeNodeOpcuaLogs). Its loggers are process-wide, so the last
 * gateway started decides where they go.
 */
export function routeNodeOpcuaLogsTo(logger: Logger): void {
  routeNodeOpcuaLogs(logger, { setErrorLogger, setWarningLogger, setDebugLogger });
}
