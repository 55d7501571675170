import type { Logger, ProcessMetrics } from "@twinport/shared";
import { matchedRoutes } from "hono/route";
import type { GatewayContext } from "./gateway-env.ts";

/**
 * Request count and latency per method, route template and status, and a log line per request
 * with its correlation id (warn for 5xx, debug otherwise), for a request that started at `started`
 * (performance.now()) and has been answered. The label is the template the request matched
 * (`/api/v3.0/submodels/:submodelIdentifier`), never the raw path: ids would make every request
 * its own time series. Called by request-frame.ts.
 */
export function observeRequest(
  c: GatewayContext,
  metrics: ProcessMetrics,
  logger: Logger | undefined,
  started: number,
): void {
  observeAnswered(c.req.method, routeLabel(c), c.res.status, c.get("correlationId"), metrics, logger, started);
}

/** observeRequest for an answer given without a Hono context (hot-value-route.ts): the same series and log line. */
export function observeAnswered(
  method: string,
  route: string,
  status: number,
  correlationId: string,
  metrics: ProcessMetrics,
  logger: Logger | undefined,
  started: number,
): void {
  const seconds = (performance.now() - started) / 1000;
  metrics.observeHttpRequest(method, route, status, seconds);
  if (logger && (status >= 500 || logger.isLevelEnabled("debug"))) {
    const fields = { method, route, status, ms: Math.round(seconds * 10_000) / 10, correlationId };
    if (status >= 500) logger.warn(fields, "request failed");
    else logger.debug(fields, "request");
  }
}

/**
 * After next(), the last handler that ran is the route that answered (or a catch-all). A request a
 * middleware answered before its route ran (authentication refusing a credential: 400, 401, 503)
 * was labelled with the middleware's `/*`, the label of unknown paths, so an issuer outage could
 * not be told from scanners (a black-box finding): it gets the template of the route it matched.
 */
function routeLabel(c: GatewayContext): string {
  // routePath's own lookup, done once (it maps the matched routes on every call).
  const routes = matchedRoutes(c);
  const ran = routes[c.req.routeIndex];
  const path = ran?.path ?? "";
  if (ran !== undefined && ran.method === "ALL" && ran.path.endsWith("*")) {
    for (let i = routes.length - 1; i > c.req.routeIndex; i--) {
      const route = routes[i]!;
      if (route.method !== "ALL") return route.path;
    }
  }
  return path || "unmatched";
}
