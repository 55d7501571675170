import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "hono";

// The correlation id is kept per request; typed through Hono's variable map so the app stays a
// plain `Hono` for its users.
declare module "hono" {
  interface ContextVariableMap {
    correlationId: string;
    /** A file download: `application/octet-stream` in Accept admits it whatever its own type (file-response.ts). */
    fileDownload: boolean;
    /** The endpoint's pathPrefix, when the request came under it (routing-path.ts clientPrefix). */
    clientPrefix: string;
    /** The request's body reached LONG_BODY_BYTES: its command gets the long deadline (long-request.ts). */
    longBody: boolean;
  }
}

export type GatewayContext = Context;

/** The Node request behind a Hono request when served by @hono/node-server (absent in app.request()). */
export function incomingMessageOf(c: GatewayContext): IncomingMessage | undefined {
  const env = c.env as { incoming?: IncomingMessage } | undefined;
  return env?.incoming;
}

/** The Node response behind a Hono request when served by @hono/node-server (absent in app.request()). */
export function outgoingMessageOf(c: GatewayContext): ServerResponse | undefined {
  const env = c.env as { outgoing?: ServerResponse } | undefined;
  return env?.outgoing;
}
