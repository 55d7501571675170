import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

export type Serve = (incoming: IncomingMessage, outgoing: ServerResponse) => void;

/**
 * Requests pipelined on one connection are served one after the other: each is handed to `serve`
 * once the answer before it has ended. Node parses a pipelined request and emits it while the one
 * before is still running (it only orders the answers), so a GET behind a PATCH read the old value,
 * and a PATCH behind a PATCH could land first. RFC 9112 §9.3.2 lets a server run pipelined requests
 * in parallel only when all of them are safe. A connection whose client waits for each answer (the
 * usual case) finds the answer before ended and is served at once: one WeakMap look-up per request.
 */
export function servedInConnectionOrder(serve: Serve): Serve {
  /** Per connection: the answer of its latest request, served or waiting. */
  const latest = new WeakMap<Duplex, ServerResponse>();
  return (incoming, outgoing) => {
    const socket = incoming.socket;
    const before = latest.get(socket);
    latest.set(socket, outgoing);
    if (before === undefined || before.writableEnded || before.destroyed) return serve(incoming, outgoing);
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      before.off("finish", start);
      before.off("close", start);
      serve(incoming, outgoing);
    };
    before.once("finish", start);
    before.once("close", start);
  };
}
