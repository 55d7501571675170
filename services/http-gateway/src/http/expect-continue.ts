import type { IncomingMessage, RequestListener, Server } from "node:http";

/**
 * `Expect: 100-continue` asks whether the body is wanted before it is sent (RFC 9110 §10.1.1). Node
 * answers every such request "100 Continue" itself unless the server listens for `checkContinue`,
 * so a client declaring a body over maxRequestBodySize was invited to send it and only then got its
 * 413, which the docs promise "before the body is read". With this, such a request gets no 100: it
 * goes to the routes as it is and is answered 413 (and Connection: close) from its declared length.
 * Nor does one whose body would not fit beside the bodies the endpoint holds (it is answered 503).
 * Every other one gets its 100 and is served as before.
 */
export function continueOnlyWithinLimit(
  server: Server,
  listener: RequestListener,
  maxRequestBodySize: number,
  /** Whether the body fits beside the bodies the endpoint holds now (buffered-bodies.ts): else no 100 either. */
  fits: (incoming: IncomingMessage) => boolean = () => true,
): void {
  server.on("checkContinue", (incoming, outgoing) => {
    const declared = Number(incoming.headers["content-length"]);
    if (!(Number.isFinite(declared) && declared > maxRequestBodySize) && fits(incoming)) outgoing.writeContinue();
    listener(incoming, outgoing);
  });
}
