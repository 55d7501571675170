import { type Logger, routeNodeOpcuaLogs } from "@twinport/shared";
import { setDebugLogger, setErrorLogger, setWarningLogger } from "node-opcua-client";

let routedTo: Logger | undefined;

/**
 * node-opcua-client's errors, warnings and debug lines as pino lines at their own levels (see
 * routeNodeOpcuaLogs); left alone, they go to stdout with console.log, beside the ready line. Its
 * loggers are process-wide (in embedded mode the OPC UA gateway routes the same ones to the same
 * logger): routed once per logger, when the first OPC UA connection loads node-opcua-client.
 */
export function routeNodeOpcuaClientLogsTo(logger: Logger): void {
  if (routedTo === logger) return;
  routedTo = logger;
  routeNodeOpcuaLogs(logger, { setErrorLogger, setWarningLogger, setDebugLogger });
}
