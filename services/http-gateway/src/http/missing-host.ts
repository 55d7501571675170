import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger, ProcessMetrics } from "@twinport/shared";
import { resultBody } from "./result-body.ts";

/**
 * An HTTP/1.1 request without a Host header (RFC 9112 §3.2: the server must answer 400). Node
 * answers it itself unless the server is made with `requireHostHeader: false`, but with an empty
 * chunked body; every other malformed request here gets the AAS Result body (client-error.ts), so
 * this one is answered the same way. HTTP/1.0 may leave Host out: it goes on to the app (which
 * needs a Host to build the URL, and says so in a Result body).
 * True when the request was answered.
 */
export function answeredMissingHost(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  deps: { metrics?: ProcessMetrics; logger?: Logger },
): boolean {
  if (incoming.headers.host !== undefined || incoming.httpVersionMajor !== 1 || incoming.httpVersionMinor !== 1)
    return false;
  const body = JSON.stringify(
    resultBody(
      400,
      { message: "An HTTP/1.1 request must carry a Host header (RFC 9112 §3.2)" },
      { includeErrorDetails: false, now: new Date() },
    ),
  );
  outgoing.shouldKeepAlive = false;
  outgoing.writeHead(400, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  outgoing.end(body);
  deps.metrics?.observeHttpRequest(incoming.method ?? "unknown", "unparsed", 400, 0);
  deps.logger?.info({ status: 400, reason: "no Host header" }, "malformed HTTP request refused");
  return true;
}
