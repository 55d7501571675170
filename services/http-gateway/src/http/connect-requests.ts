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
 * Pipelined behind another request, the CONNECT's answer waits for that one's, as Node's own
 * answers queue on a connection: the socket is still that answer's until it finished, and taking it
 * before (assignSocket throws ERR_HTTP_SOCKET_ASSIGNED, in an event listener) ended the process:
 * one packet stopped the server (black-box finding). The handler runs at once; what it writes is
 * held by the response until it has the socket.
 */
export function connectAnsweredAsRequest(server: Server, listener: RequestListener): void {
  server.on("connect", (incoming: IncomingMessage, socket: Socket) => {
    const outgoing = new EmptyBodyFramingResponse(incoming);
    outgoing.shouldKeepAlive = false;
    const take = () => {
      // The earlier answer closed the connection (it was asked to): nothing more can be written.
      if (socket.destroyed || !socket.writable) return;
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
    const earlier = answerHolding(socket);
    if (earlier === undefined) take();
    else {
      // After Node's own 'finish' listener, which lets go of the socket (resOnFinish: detachSocket).
      earlier.once("finish", () => setImmediate(take));
      earlier.once("close", () => {
        if (!earlier.writableFinished) socket.destroy();
      });
    }
    listener(incoming, outgoing);
  });
}

/** The answer of an earlier request that still holds the socket (Node's own field; no public one). */
function answerHolding(socket: Socket): ServerResponse | undefined {
  const held = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  return held ?? undefined;
}
