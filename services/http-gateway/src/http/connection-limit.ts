import type { Server } from "node:net";
import type { Logger } from "@twinport/shared";
import { refusalLog } from "./refusal-log.ts";

/**
 * `maxConnections`: a connection that arrives while the endpoint holds that many is closed at once
 * (Node's own `server.maxConnections`; HTTP has no answer before a request, TLS none before its
 * handshake). Without it 20,000 idle connections from one client used up the process's file
 * descriptors, and then nothing else could open a file or reach Redis. Logged as refusal-log.ts does.
 */
export function limitConnections(server: Server, maxConnections: number, logger: Logger | undefined): void {
  server.maxConnections = maxConnections;
  const refusals = refusalLog(logger, (count) => [
    { maxConnections, closed: count },
    `Closed ${count} new connection(s): the endpoint holds ${maxConnections} already (maxConnections)`,
  ]);
  server.on("drop", refusals.note);
  server.once("close", refusals.stop);
}
