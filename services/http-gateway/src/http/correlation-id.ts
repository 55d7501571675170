import { randomUUID } from "node:crypto";
import { type GatewayContext, outgoingMessageOf } from "./gateway-env.ts";

export const CORRELATION_ID_HEADER = "X-Correlation-Id";

// A client's id is echoed into responses and events, so only plain, bounded tokens are taken over.
const ACCEPTABLE = /^[\x21-\x7e]{1,128}$/;

/**
 * The request's correlation id, kept on the context and set on the Node response before the
 * handler answers (Node merges it into whatever headers the response is written with). Touching
 * `c.res.headers` after next() instead would turn @hono/node-server's cached response into a full
 * Response read back through a stream, which cost more CPU than the rest of a GET $value
 * (profiled). Returns false without a Node response (app.request() in tests): the caller then
 * sets the header on `c.res` after the handler.
 */
export function takeCorrelationId(c: GatewayContext): boolean {
  const id = correlationIdOf(c.req.header(CORRELATION_ID_HEADER));
  c.set("correlationId", id);
  const outgoing = outgoingMessageOf(c);
  if (!outgoing) return false;
  outgoing.setHeader(CORRELATION_ID_HEADER, id);
  return true;
}

/** The client's X-Correlation-Id when it is a plain, bounded token; otherwise a new one. */
export function correlationIdOf(given: string | undefined): string {
  return given !== undefined && ACCEPTABLE.test(given) ? given : randomUUID();
}
