import type { IncomingMessage, RequestListener, Server } from "node:http";
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
 */
export function connectAnsweredAsRequest(server: Server, listener: RequestListener): void {
  server.on("connect", (incoming: IncomingMessage, socket: Socket) => {
    const outgoing = new EmptyBodyFramingResponse(incoming);
    outgoing.shouldKeepAlive = false;
    outgoing.assignSocket(socket);
    // What Node does after a Connection: close answer of its own requests: end, then destroy once written.
    outgoing.once("finish", () => {
      outgoing.detachSocket(socket);
      socket.destroySoon();
    });
    outgoing.once("close", () => {
      if (!outgoing.writableFinished) socket.destroy();
    });
    listener(incoming, outgoing);
  });
}
