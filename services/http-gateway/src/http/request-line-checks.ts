import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import type { Logger, ProcessMetrics } from "@twinport/shared";
import { hasDotSegment } from "./dot-segments.ts";
import { endWithResult } from "./result-body.ts";

/**
 * The checks of a request before any route sees it, on what Node's parser lets through: the HTTP
 * version of its request line (HTTP/1.0 and HTTP/1.1 only: 505), its path (no dot segments), its
 * framing (no Transfer-Encoding in HTTP/1.0), and its Host header. Refused requests get the AAS Result body and Connection: close.
 * Host: RFC 9112 §3.2 has an HTTP/1.1 request carry one, and a request with more than one is a 400.
 * Node answers a missing one itself unless the server is made with `requireHostHeader: false`, but
 * with an empty chunked body, and keeps the first of two (the hot route and node-server then served
 * it); every other malformed request here gets the AAS Result body (client-error.ts), so these are
 * answered the same way. HTTP/1.0 predates Host and its clients (old tools, some PLC stacks) may
 * leave it out: such a request is served as if it named the endpoint's own address
 * (endpointHostOf), on the hot route and the general path alike, which both need a Host
 * (node-server builds the request's URL from it).
 * True when the request was refused (answered); false when it goes on, its Host made plain.
 */
export function refusedByRequestLineChecks(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  deps: { metrics?: ProcessMetrics; logger?: Logger },
): boolean {
  // An HTTP/1.x connection carries HTTP/1.0 and HTTP/1.1 only (Node's parser reads any digits).
  const version = `${incoming.httpVersionMajor}.${incoming.httpVersionMinor}`;
  if (version !== "1.1" && version !== "1.0")
    return refused(
      incoming,
      outgoing,
      deps,
      `HTTP/${version}`,
      `HTTP/${version} is not supported; send HTTP/1.1 or HTTP/1.0`,
      505,
    );
  // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 message is faulty framing (a smuggling vector
  // behind a proxy that reads it the other way); Node's parser would decode it as chunked.
  if (version === "1.0" && incoming.headers["transfer-encoding"] !== undefined)
    return refused(
      incoming,
      outgoing,
      deps,
      "Transfer-Encoding in HTTP/1.0",
      "An HTTP/1.0 request cannot carry Transfer-Encoding (RFC 9112 §6.1)",
    );
  // A "." or ".." segment would be resolved away before routing, to another resource (dot-segments.ts).
  if (hasDotSegment(incoming.url ?? ""))
    return refused(
      incoming,
      outgoing,
      deps,
      "a dot segment in the path",
      "The path must not contain '.' or '..' segments (also not percent-encoded): they would name another resource than the one written",
    );
  // RFC 9112 §6.3: a request whose last transfer coding is not chunked has no knowable length, a
  // 400 and close; §6.1: one with a coding the server does not know before the chunked (Node decodes
  // only the chunking, and passed "gzip, chunked" on as if plain) is a 501.
  const codings = incoming.headers["transfer-encoding"];
  if (codings !== undefined && codings.trim().toLowerCase() !== "chunked") {
    const shown = codings.slice(0, 64);
    const endsChunked = codings.split(",").at(-1)?.trim().toLowerCase() === "chunked";
    return refused(
      incoming,
      outgoing,
      deps,
      `Transfer-Encoding ${shown}`,
      endsChunked
        ? `Transfer-Encoding '${shown}' is not supported: send the body plain or only chunked`
        : `Transfer-Encoding '${shown}' does not end with chunked, so the body's length cannot be known (RFC 9112 §6.3)`,
      endsChunked ? 501 : 400,
    );
  }
  // Two Host lines, one of them empty or not: which one names the host is anyone's guess.
  if (hasSecondHost(incoming.rawHeaders))
    return refused(
      incoming,
      outgoing,
      deps,
      "more than one Host header",
      "A request must carry one Host header, not more (RFC 9112 §3.2)",
    );
  // An empty Host names nothing: as if there were none.
  if (incoming.headers.host === "") {
    delete incoming.headers.host;
    removeRawHost(incoming.rawHeaders);
  }
  const host = incoming.headers.host;
  if (host !== undefined) {
    if (host.endsWith(":")) withoutEmptyPort(incoming, host);
    return false;
  }
  if (version === "1.0") {
    takeHost(incoming, endpointHostOf(incoming.socket));
    return false;
  }
  return refused(
    incoming,
    outgoing,
    deps,
    "no Host header",
    "An HTTP/1.1 request must carry a Host header (RFC 9112 §3.2)",
  );
}

function refused(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  deps: { metrics?: ProcessMetrics; logger?: Logger },
  reason: string,
  message: string,
  status = 400,
): true {
  endWithResult(outgoing, status, message);
  deps.metrics?.observeHttpRequest(incoming.method ?? "unknown", "unparsed", status, 0);
  deps.logger?.info({ status, reason }, "malformed HTTP request refused");
  return true;
}

function removeRawHost(raw: string[]): void {
  for (let i = raw.length - 2; i >= 0; i -= 2)
    if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === "host") raw.splice(i, 2);
}

/** Node keeps the first Host of two in `headers`; the raw list has them all. */
function hasSecondHost(raw: string[]): boolean {
  let seen = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length !== 4 || name.toLowerCase() !== "host") continue;
    if (seen) return true;
    seen = true;
  }
  return false;
}

/**
 * The Host an HTTP/1.0 request without one is served under: the name the client gave in the TLS
 * handshake (SNI; sniEnabled's check then passes, as the client asked for no other host), else the
 * address and port the connection reached, which is the endpoint's own address.
 */
function endpointHostOf(socket: Socket): string {
  const servername = (socket as TLSSocket).servername;
  const address = socket.localAddress ?? "localhost";
  const name = typeof servername === "string" && servername !== "" ? servername : address;
  return `${name.includes(":") ? `[${name}]` : name}:${socket.localPort}`;
}

/**
 * `Host: localhost:` names the default port: RFC 3986 §3.2.3 has `port = *DIGIT` and says an empty
 * port is to be omitted, as RFC 9110 §7.2 takes it. @hono/node-server refused it (its URL's host
 * lost the colon and no longer matched the header: "Invalid host header"), and the hot route took
 * no such Host; the Host without it is served by every route, and sniEnabled compares its name.
 * Only a trailing colon after a name or a bracketed address goes (`a:b:` stays, for node-server to
 * refuse), and `:` alone stays too: it names no host.
 */
function withoutEmptyPort(incoming: IncomingMessage, host: string): void {
  const name = host.slice(0, -1);
  if (name === "" || (name.includes(":") && !(name.startsWith("[") && name.endsWith("]")))) return;
  incoming.headers.host = name;
  const raw = incoming.rawHeaders;
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === "host") raw[i + 1] = name;
}

/** Both views of the headers: Node's object (hot route, node-server's URL) and the raw list (Hono's). */
function takeHost(incoming: IncomingMessage, host: string): void {
  incoming.headers.host = host;
  incoming.rawHeaders.push("Host", host);
}
