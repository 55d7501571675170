import { randomUUID } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { type GatewayContext, outgoingMessageOf } from "./gateway-env.ts";

export const CORRELATION_ID_HEADER = "X-Correlation-Id";

// A client's id is echoed into responses and events, so only plain, bounded tokens are taken over.
const ACCEPTABLE = /^[\x21-\x7e]{1,128}$/;

/** Takes the client's X-Correlation-Id (or makes one), keeps it for the command, and sends it back. */
export function correlationId(): MiddlewareHandler {
  return async (c: GatewayContext, next) => {
    const given = c.req.header(CORRELATION_ID_HEADER);
    const id = given !== undefined && ACCEPTABLE.test(given) ? given : randomUUID();
    c.set("correlationId", id);
    // Set on the Node response before the handler answers: Node merges it into whatever headers
    // the response is written with. Touching `c.res.headers` after next() instead would turn
    // @hono/node-server's cached response into a full Response read back through a stream, which
    // cost more CPU than the rest of a GET $value (profiled).
    const outgoing = outgoingMessageOf(c);
    if (outgoing) {
      outgoing.setHeader(CORRELATION_ID_HEADER, id);
      await next();
    } else {
      await next();
      c.res.headers.set(CORRELATION_ID_HEADER, id);
    }
  };
}
