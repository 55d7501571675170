import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { endWithResult } from "./result-body.ts";

export type Serve = (incoming: IncomingMessage, outgoing: ServerResponse) => void;

/**
 * How many requests may wait behind an unfinished answer on one connection before the server stops
 * reading it. Clients that pipeline send a few; a held request writes nothing, so Node never pushes
 * back on the socket, and without a bound one connection (an endless /events stream with requests
 * behind it) could pile up millions. Past it the socket is paused, and resumed once half of them
 * have been served: a burst of quick requests is served in full (the connection was closed at the
 * 33rd, and the answers already made were lost with it). Requests Node parsed from data it had read
 * before the pause still come; past MAX_PARSED_WAITING each is answered 503 without being served,
 * in its place after the answers before it, and the connection closes after the first of them.
 */
export const MAX_WAITING_PER_CONNECTION = 32;
export const MAX_PARSED_WAITING = 8 * MAX_WAITING_PER_CONNECTION;

/**
 * Requests pipelined on one connection are served one after the other: each is handed to `serve`
 * once the answer before it has ended. Node parses a pipelined request and emits it while the one
 * before is still running (it only orders the answers), so a GET behind a PATCH read the old value,
 * and a PATCH behind a PATCH could land first. RFC 9112 §9.3.2 lets a server run pipelined requests
 * in parallel only when all of them are safe. A connection whose client waits for each answer (the
 * usual case) finds the answer before ended and is served at once: one WeakMap look-up per request.
 *
 * A waiting request is never served once its connection is gone: its answer could reach no one,
 * and a write made then would be one its client can never learn the outcome of. A connection with
 * more than MAX_WAITING_PER_CONNECTION requests waiting is read no further until they are served.
 */
export function servedInConnectionOrder(serve: Serve): Serve {
  /** Per connection: the answer of its latest request, served or waiting, and how many wait. */
  const latest = new WeakMap<Duplex, { response: ServerResponse; waiting: number; paused: boolean }>();
  return (incoming, outgoing) => {
    const socket = incoming.socket;
    const state = latest.get(socket);
    const before = state?.response;
    if (before === undefined || before.writableEnded || before.destroyed) {
      latest.set(socket, { response: outgoing, waiting: 0, paused: state?.paused ?? false });
      return serve(incoming, outgoing);
    }
    const waiting = state!.waiting + 1;
    if (waiting > MAX_PARSED_WAITING) {
      // Not served, and said so: Node sends this answer after those of the requests before it (it
      // keeps pipelined answers in order), then closes the connection. Cutting the connection here
      // lost the answers of requests already served, a committed write's among them.
      endWithResult(
        outgoing,
        503,
        `More than ${MAX_PARSED_WAITING} requests were pipelined behind an unfinished answer on this connection: this one was not served; send it again on a new connection`,
      );
      return;
    }
    let paused = state!.paused;
    if (waiting > MAX_WAITING_PER_CONNECTION && !paused) {
      socket.pause();
      paused = true;
    }
    latest.set(socket, { response: outgoing, waiting, paused });
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      before.off("finish", start);
      before.off("close", start);
      const now = latest.get(socket);
      if (now !== undefined && now.waiting > 0) now.waiting -= 1;
      if (socket.destroyed) return;
      if (now?.paused && now.waiting <= MAX_WAITING_PER_CONNECTION / 2) {
        now.paused = false;
        socket.resume();
      }
      serve(incoming, outgoing);
    };
    before.once("finish", start);
    before.once("close", start);
  };
}
