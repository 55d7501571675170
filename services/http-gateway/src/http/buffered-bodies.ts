import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger, ProcessMetrics } from "@twinport/shared";
import { refusalLog } from "./refusal-log.ts";
import { endWithResult } from "./result-body.ts";

/** How long a client is told to wait before it tries a refused body again. */
const RETRY_AFTER_SECONDS = "1";

/**
 * `maxBufferedRequestBodySize`: the bytes of request bodies the endpoint holds at once. Every body is
 * read whole into memory (the engine takes a model as one text, a multipart upload is parsed from one
 * buffer), and then held as text and parsed objects several times its size until the answer. Each
 * request stays within maxRequestBodySize, but nothing bounded them together: ten clients sending
 * 60 MB each, or one client on many connections, could take the process past its heap (embedded:
 * every endpoint and the model with it).
 *
 * A request is counted by what it declares (Content-Length; a chunked one as maxRequestBodySize, the
 * most it may send) from its arrival to its answer's end. One that would pass the budget is answered
 * 503 with Retry-After before a byte of its body is read, and its connection is closed (its body is
 * never read, so nothing else can follow on it). Requests without a body are never counted. The
 * check runs when the request's turn on its connection comes (connection-order.ts), so a pipelined
 * request is counted only once its answer owns the socket, and that answer's `close` always comes.
 */
export interface BufferedBodies {
  /** True when the request was refused (answered). */
  refused(incoming: IncomingMessage, outgoing: ServerResponse): boolean;
  /** Whether the request's body fits beside the bodies held now (no "100 Continue" otherwise). */
  fits(incoming: IncomingMessage): boolean;
  /** The endpoint closes: its refusals are no longer counted. */
  stop(): void;
}

export function bufferedBodies(
  maxBytes: number,
  maxRequestBodySize: number,
  deps: { metrics?: ProcessMetrics; logger?: Logger },
): BufferedBodies {
  let held = 0;
  const refusals = refusalLog(deps.logger, (count) => [
    { maxBufferedRequestBodySize: maxBytes, refused: count },
    `Refused ${count} request(s) unread (503): their bodies would have passed maxBufferedRequestBodySize (${maxBytes} bytes held at once)`,
  ]);
  const fits = (incoming: IncomingMessage) => held + declaredBodyBytes(incoming, maxRequestBodySize) <= maxBytes;
  const refused = (incoming: IncomingMessage, outgoing: ServerResponse): boolean => {
    const declared = declaredBodyBytes(incoming, maxRequestBodySize);
    if (declared === 0) return false;
    if (held + declared > maxBytes) {
      outgoing.setHeader("Retry-After", RETRY_AFTER_SECONDS);
      endWithResult(
        outgoing,
        503,
        `The server holds ${held} bytes of other requests' bodies; this one's ${declared} would pass maxBufferedRequestBodySize (${maxBytes}). It was not read; try again shortly`,
      );
      deps.metrics?.observeHttpRequest(incoming.method ?? "unknown", "unread", 503, 0);
      refusals.note();
      return true;
    }
    held += declared;
    outgoing.once("close", () => {
      held -= declared;
    });
    return false;
  };
  return { refused, fits, stop: refusals.stop };
}

/** The body a request declares: its Content-Length, maxRequestBodySize when chunked, else none. */
function declaredBodyBytes(incoming: IncomingMessage, maxRequestBodySize: number): number {
  if (incoming.headers["transfer-encoding"] !== undefined) return maxRequestBodySize;
  const length = Number(incoming.headers["content-length"]);
  // One past maxRequestBodySize counts as that much: it is refused with 413 before it is read.
  return Number.isSafeInteger(length) && length > 0 ? Math.min(length, maxRequestBodySize) : 0;
}
