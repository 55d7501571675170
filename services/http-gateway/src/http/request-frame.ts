import type { Logger, ProcessMetrics } from "@twinport/shared";
import type { MiddlewareHandler } from "hono";
import { CORRELATION_ID_HEADER, takeCorrelationId } from "./correlation-id.ts";
import type { GatewayContext } from "./gateway-env.ts";
import { observeRequest } from "./request-metrics.ts";

/**
 * What every request gets first, in one middleware (each Hono middleware layer costs a dispatch
 * and a promise per request, ADR 0026): its correlation id (correlation-id.ts) and, with metrics,
 * its count, latency and log line (request-metrics.ts), taken after everything else has answered.
 */
export function requestFrame(metrics?: ProcessMetrics, logger?: Logger): MiddlewareHandler {
  if (!metrics) {
    return async (c: GatewayContext, next) => {
      if (takeCorrelationId(c)) return next();
      await next();
      c.res.headers.set(CORRELATION_ID_HEADER, c.get("correlationId"));
    };
  }
  return async (c: GatewayContext, next) => {
    const started = performance.now();
    const onNode = takeCorrelationId(c);
    // Hono answers thrown errors through onError inside next(), so c.res is final afterwards.
    await next();
    if (!onNode) c.res.headers.set(CORRELATION_ID_HEADER, c.get("correlationId"));
    observeRequest(c, metrics, logger, started);
  };
}
