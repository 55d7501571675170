import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { HttpEndpointSettings } from "../http-endpoint-settings.ts";

/** The endpoint's cors* settings as response headers, and answers to preflight OPTIONS requests. */
export function corsPolicy(settings: HttpEndpointSettings): MiddlewareHandler {
  const origins = corsOriginsOf(settings);
  return cors({
    // One origin or "*" is sent as configured; with several, the matching request origin is echoed.
    origin: origins.length === 1 ? origins[0] : origins,
    allowMethods: list(settings.corsAllowedMethods),
    allowHeaders: list(settings.corsAllowedHeaders),
    // Exactly as configured (spec §2.3: default empty). A web application on another origin that
    // reads Twinport-Warning (routes/serialization.ts) or ETag names them in corsExposedHeaders.
    exposeHeaders: list(settings.corsExposedHeaders),
    maxAge: settings.corsMaxAge,
    credentials: settings.corsAllowCredentials,
  });
}

/** The origins corsAllowedOrigin names ("*" for any). */
export function corsOriginsOf(settings: HttpEndpointSettings): string[] {
  return list(settings.corsAllowedOrigin);
}

function list(commaSeparated: string): string[] {
  return commaSeparated
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}
