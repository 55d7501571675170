import { format, stripVTControlCharacters } from "node:util";
import type { Logger } from "pino";

/**
 * Sends what libraries print with console.* to the process's log (stderr) instead of stdout, where
 * a Twinport process writes only its ready line, which harnesses and operators wait for. Twinport
 * never prints with console itself; node-opcua-pki does (a failed chmod of a read-only key file on
 * Kubernetes came out as a bare text line on stdout), and it offers no logger to set. For the CLI
 * only (runRole's `ownsConsole`): tests share one process and keep their console.
 */
export function routeConsoleToLog(logger: Logger): void {
  const line = (args: unknown[]) => stripVTControlCharacters(format(...args)).trim();
  const fields = { component: "console" };
  console.log = (...args: unknown[]) => logger.info(fields, line(args));
  console.info = (...args: unknown[]) => logger.info(fields, line(args));
  console.debug = (...args: unknown[]) => logger.debug(fields, line(args));
  console.warn = (...args: unknown[]) => logger.warn(fields, line(args));
  console.error = (...args: unknown[]) => logger.error(fields, line(args));
}
