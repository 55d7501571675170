import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { EmptyBodyFramingResponse } from "./empty-body-framing.ts";

/**
 * CONNECT (RFC 9110 §9.3.6) asks for a tunnel. Node hands such a request to the server's 'connect'
 * listeners with the bare socket and, without one, destroys the connection: the client heard
 * nothing. An origin server opens no tunnels, so CONNECT is answered as any method a path does not
 * serve, by the same request listener (the general path's 405 with Allow on an AAS path, its 404
 * elsewhere, a 400 for a target it cannot read; counted and logged like every answer). Node has
 * already let go of the connection (its parser no longer reads it), so no further request can
 * follow on it: the answer says Connection: close and the socket closes once it is written.
 *
 * Two things Node does for its own requests are ours here, or one packet ends the process (black-box
 * findings, before any authentication):
 * - the socket's errors: Node took its 'error' listener away, so a client that resets the connection
 *   (ECONNRESET, EPIPE on the answer) raised an unhandled 'error' event;
 * - the order of answers: pipelined behind other requests, the CONNECT's answer waits until every
 *   earlier answer has had the socket. Node hands the socket from one queued answer to the next as
 *   each finishes; taking it while one holds it throws ERR_HTTP_SOCKET_ASSIGNED (in an event
 *   listener), so the answer looks again after each one finished, until none holds it.
 * The handler runs at once; what it writes is held by the response until it has the socket.
 */
export function connectAnsweredAsRequest(server: Server, listener: RequestListener): void {
  server.on("connect", (incoming: IncomingMessage, socket: Socket) => {
    socket.on("error", () => socket.destroy());
    const outgoing = new EmptyBodyFramingResponse(incoming);
    outgoing.shouldKeepAlive = false;
    outgoing.on("error", () => socket.destroy());
    const take = (): void => {
      // An earlier answer closed the connection (asked to, or the client went): nothing more to write.
      if (socket.destroyed || !socket.writable) return;
      const earlier = answerHolding(socket);
      if (earlier !== undefined) {
        // After Node's own 'finish' listener, which lets go of the socket or hands it to the next answer.
        earlier.once("finish", () => setImmediate(take));
        earlier.once("close", () => {
          if (!earlier.writableFinished) socket.destroy();
        });
        return;
      }
      outgoing.assignSocket(socket);
      // What Node does after a Connection: close answer of its own requests: end, then destroy once written.
      outgoing.once("finish", () => {
        outgoing.detachSocket(socket);
        socket.destroySoon();
      });
    };
    outgoing.once("close", () => {
      if (!outgoing.writableFinished) socket.destroy();
    });
    take();
    listener(incoming, outgoing);
  });
}

/** The answer of an earlier request that holds the socket now (Node's own field; no public one). */
function answerHolding(socket: Socket): ServerResponse | undefined {
  const held = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  return held ?? undefined;
}
