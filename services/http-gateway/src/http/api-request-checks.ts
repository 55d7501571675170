import type { MiddlewareHandler } from "hono";
import { acceptableRepresentation } from "./acceptable-representation.ts";
import { bodySizeLimit } from "./body-size-limit.ts";
import { refuseContentCoding } from "./content-coding.ts";

/**
 * The checks of every API request, as one middleware (one Hono layer less per request, ADR 0026):
 * reads (GET, HEAD) carry no body and have their Accept checked (acceptable-representation.ts);
 * every other method has no representation to negotiate, its body bounded (body-size-limit.ts) and
 * taken only without a content coding (content-coding.ts).
 * The same as the two in a row, each of which passes the other's methods straight on.
 */
export function apiRequestChecks(maxRequestBodySize: number): MiddlewareHandler {
  const accept = acceptableRepresentation();
  const limit = bodySizeLimit(maxRequestBodySize);
  return (c, next) => {
    if (c.req.method === "GET" || c.req.method === "HEAD") return accept(c, next);
    refuseContentCoding(c.req.header("Content-Encoding"));
    return limit(c, next);
  };
}
