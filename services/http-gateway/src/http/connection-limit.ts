import type { Server } from "node:net";
import type { Logger } from "@twinport/shared";

/** How often, at most, the refused connections are logged while they go on. */
const LOG_EVERY_MS = 60_000;

/**
 * `maxConnections`: a connection that arrives while the endpoint holds that many is closed at once
 * (Node's own `server.maxConnections`; HTTP has no answer before a request, TLS none before its
 * handshake). Without it 20,000 idle connections from one client used up the process's file
 * descriptors, and then nothing else could open a file or reach Redis. The first closure is logged
 * when it happens, later ones as a count once a minute while they go on.
 */
export function limitConnections(server: Server, maxConnections: number, logger: Logger | undefined): void {
  server.maxConnections = maxConnections;
  let unlogged = 0;
  let timer: NodeJS.Timeout | undefined;
  const report = (count: number) =>
    logger?.warn(
      { maxConnections, closed: count },
      `Closed ${count} new connection(s): the endpoint holds ${maxConnections} already (maxConnections)`,
    );
  server.on("drop", () => {
    if (timer !== undefined) {
      unlogged++;
      return;
    }
    report(1);
    timer = setInterval(() => {
      if (unlogged === 0) {
        clearInterval(timer);
        timer = undefined;
        return;
      }
      report(unlogged);
      unlogged = 0;
    }, LOG_EVERY_MS);
    timer.unref();
  });
  server.once("close", () => clearInterval(timer));
}
