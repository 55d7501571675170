import type { Server } from "node:http";
import type { Duplex } from "node:stream";

/**
 * Cuts connections that hold the server without moving, which Node's own timeouts leave open:
 * - one that never sent a request (Node's headersTimeout starts with the first byte, so a socket
 *   that sends nothing stayed open for as long as its client liked: a file descriptor each, and a
 *   few thousand of them exhaust the process);
 * - one whose answer has stopped leaving because the client does not read (a large GET or
 *   `/serialization` held its buffers, megabytes per connection, for as long as the client liked).
 * A response that is still being computed (a large import) does not count: only a socket that
 * waits for its client to take bytes does. Server-sent events have their own slow-reader cut.
 */
export interface StalledConnectionLimits {
  /** How long a connection may stay open without sending a request. */
  firstRequestMs: number;
  /** How long an answer may wait for its client to read (no `drain` meanwhile). */
  writeStallMs: number;
  /** How often connections are looked at; default 5 s. */
  sweepMs?: number;
}

interface Watched {
  openedAt: number;
  requested: boolean;
  /** When a sweep first found the socket waiting for its client to read, since its last drain. */
  stalledSince?: number;
}

export interface StalledConnectionWatch {
  /** A connection to watch, as the server's own connection tracking meets it (the TLS socket for HTTPS). */
  watch(socket: Duplex): void;
  stop(): void;
}

/** Watches the connections handed to `watch` and the requests `server` gets on them. */
export function cutStalledConnections(server: Server, limits: StalledConnectionLimits): StalledConnectionWatch {
  const watched = new Map<Duplex, Watched>();
  server.on("request", (request: { socket: Duplex }) => {
    const entry = watched.get(request.socket);
    if (entry) entry.requested = true;
  });
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [socket, entry] of watched) {
      if (!entry.requested && now - entry.openedAt > limits.firstRequestMs) {
        socket.destroy();
        continue;
      }
      if (!socket.writableNeedDrain) {
        entry.stalledSince = undefined;
        continue;
      }
      entry.stalledSince ??= now;
      if (now - entry.stalledSince > limits.writeStallMs) socket.destroy();
    }
  }, limits.sweepMs ?? 5000);
  sweep.unref();
  return {
    watch(socket) {
      const entry: Watched = { openedAt: Date.now(), requested: false };
      watched.set(socket, entry);
      socket.on("drain", () => {
        entry.stalledSince = undefined;
      });
      socket.once("close", () => watched.delete(socket));
    },
    stop: () => clearInterval(sweep),
  };
}
