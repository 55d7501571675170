import type { Socket } from "node:net";
import { ANONYMOUS, echoed } from "@twinport/shared";
import { readEventFilter } from "../events/event-filter.ts";
import type { EventHub } from "../events/event-hub.ts";
import { SHUTDOWN } from "../events/event-message.ts";
import { EventStream } from "../events/event-stream.ts";
import { ApiError, badRequest } from "../http/api-error.ts";
import type { ApiRoute } from "../http/api-routes.ts";
import { type GatewayContext, outgoingMessageOf } from "../http/gateway-env.ts";
import { singleQuery } from "../http/query.ts";
import { principalOf } from "../http/request-principal.ts";
import { TWINPORT_EVENTS } from "../profiles.ts";

/**
 * GET /events (issue 15, docs/events.md): the committed changes as Server-Sent Events, profile
 * TWINPORT_EVENTS. Filters `kinds`, `id`, `semanticId`, `idShortPath`; resumable with
 * `Last-Event-ID` or `after`.
 */
export function eventRoutes(
  hub: EventHub | undefined,
  /** The bearer tokens' clock skew (security.authentication.bearer): a token is accepted until exp plus it. */
  tokenSkewMs = 0,
): ApiRoute[] {
  return [
    {
      path: "/events",
      operations: [
        {
          method: "GET",
          profiles: TWINPORT_EVENTS,
          handle: async (c) => {
            if (hub === undefined) throw ApiError.of("unavailable", "This process does not serve the event stream");
            const filter = readEventFilter(c);
            const after = positionOf(c);
            const grants = await readGrants(c, hub);
            // Stopping: a request on a connection still open while this server drains gets the
            // stream's goodbye, not an error status (after which an EventSource never reconnects).
            if (hub.isClosed)
              return new Response(`retry: 1000\n\n${SHUTDOWN}`, { status: 200, headers: STREAM_HEADERS });
            if (hub.openStreams >= hub.settings.maxStreams)
              throw ApiError.of(
                "unavailable",
                `This endpoint already serves ${hub.settings.maxStreams} event streams (events.maxStreams); try again later`,
              );
            const stream = new EventStream({
              hub,
              filter,
              ...(grants ? grants : {}),
              ...(after !== undefined ? { after } : {}),
              abort: () => outgoingMessageOf(c)?.destroy(),
              taken: () => completedWrites(outgoingMessageOf(c)?.socket),
              ...(grants ? expiryOf(c, tokenSkewMs) : {}),
            });
            await stream.open();
            endedByClientFin(c, stream);
            return new Response(stream.body, { status: 200, headers: STREAM_HEADERS });
          },
        },
      ],
    },
  ];
}

const STREAM_HEADERS = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache, no-store",
  // Proxies (nginx) must not buffer the stream.
  "X-Accel-Buffering": "no",
  // When the stream ends (shutdown, overflow) the connection ends too: a reconnecting client should
  // open a new one, not reuse one of a server that is draining.
  Connection: "close",
};

/**
 * Bytes a socket has completed writing (handed to the kernel, which takes more only as the client
 * reads): `bytesWritten` counts every byte given to the socket, `writableLength` those not written
 * yet (buffered, or in a write still pending). A TLS socket counts its cleartext the same way.
 */
function completedWrites(socket: Socket | null | undefined): number | undefined {
  if (!socket || socket.destroyed) return undefined;
  return socket.bytesWritten - socket.writableLength;
}

/**
 * The server keeps a half-closed connection open until its answer has gone (start-http-endpoint.ts,
 * RFC 9112 §9.6), but a stream has no end of its own to wait for: the client's FIN is its leaving,
 * as it was before. Without this, a client that closed would keep its stream (and a place under
 * events.maxStreams) until a heartbeat's write failed. A FIN that came before the answer's head
 * went out (the stream was opening: a gateway's first stream subscribes to the bus first, a
 * distributed one over NATS) still gets the head: the stream ends after its retry line instead of
 * the connection being cut, and the client is never left without an answer.
 */
function endedByClientFin(c: GatewayContext, stream: EventStream): void {
  const outgoing = outgoingMessageOf(c);
  const socket = outgoing?.socket;
  if (outgoing === undefined || !socket) return;
  const leave = () => (outgoing.headersSent ? outgoing.destroy() : stream.clientLeft());
  if (socket.readableEnded) leave();
  else {
    socket.once("end", leave);
    outgoing.once("close", () => socket.off("end", leave));
  }
}

/** `after` wins over Last-Event-ID (an explicit request over the browser's automatic header). */
function positionOf(c: GatewayContext): number | undefined {
  const after = singleQuery(c, "after");
  const header = c.req.header("Last-Event-ID");
  const given = after ?? header;
  if (given === undefined || (after === undefined && given.trim() === "")) return undefined;
  const name = after !== undefined ? 'Query parameter "after"' : "Last-Event-ID";
  if (!/^\d{1,15}$/.test(given.trim()))
    throw badRequest(`${name} must be a sequence number (digits), got "${echoed(given)}"`);
  return Number(given.trim());
}

/**
 * A bearer token's `exp` (the authentication middleware has verified the token already; here only
 * its payload is read): a stream outliving its token would go on showing what only the token allowed.
 * It ends when the token stops being accepted, exp plus the clock skew, as a request would be
 * refused then: a token just past its exp but within the skew opened a stream that ended at once,
 * and an EventSource reconnected every second until the skew was over.
 */
function expiryOf(c: GatewayContext, skewMs: number): { expiresAt?: number } {
  const token = /^Bearer\s+([\w-]+)\.([\w-]+)\.[\w-]*$/i.exec(c.req.header("Authorization") ?? "");
  if (token === null) return {};
  try {
    const exp = (JSON.parse(Buffer.from(token[2]!, "base64url").toString("utf8")) as { exp?: unknown }).exp;
    return typeof exp === "number" ? { expiresAt: exp * 1000 + skewMs } : {};
  } catch {
    return {};
  }
}

/**
 * With a security section: what the caller may read, from the same compiled rules the engine uses
 * (docs/adr/0024). A caller granted nothing readable is refused like any other read (anonymous:
 * 401 with a challenge, otherwise 403). Without one: unfiltered, unless the model-store has rules.
 */
async function readGrants(c: GatewayContext, hub: EventHub) {
  if (hub.policy === undefined) {
    await hub.deps.checkUnfilteredStream?.();
    return undefined;
  }
  const grants = hub.policy.grantsOf(principalOf(c) ?? ANONYMOUS);
  const read = grants.right("READ");
  if (read.grantsNothing)
    throw ApiError.of("forbidden", "READ is not granted on anything; the event stream would be empty");
  return { read, execute: grants.right("EXECUTE") };
}
