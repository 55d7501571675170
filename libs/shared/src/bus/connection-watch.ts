import type { NatsConnection, Status } from "@nats-io/nats-core";

/**
 * The connection changes a component reacts to: the statuses nats v2 called `Events`. The others
 * (reconnecting, ping, staleConnection, forceReconnect, slowConsumer, close; v2's debug events)
 * are left out; v3 dropped the enum, so the list is ours.
 */
export type ConnectionChange = "disconnect" | "reconnect" | "update" | "ldm" | "error";

const CHANGES = new Set<string>(["disconnect", "reconnect", "update", "ldm", "error"] satisfies ConnectionChange[]);

/** What v2 carried in `status.data`: the server, the cluster changes, or (now) the error's message. */
function detailOf(status: Status): string {
  switch (status.type) {
    case "disconnect":
    case "reconnect":
    case "ldm":
      return status.server;
    case "update":
      return JSON.stringify({ added: status.added, deleted: status.deleted });
    case "error":
      return status.error.message;
    default:
      return "";
  }
}

export interface ConnectionWatch {
  stop(): void;
}

/**
 * Calls `listener` for every change of the connection's state until `stop()` or the connection
 * closes. Each component watches on its own (the client allows several status iterators), so a
 * bus or client works with any connection, not only one made by connectNats.
 */
export function watchConnection(
  connection: NatsConnection,
  listener: (change: ConnectionChange, detail: string) => void,
): ConnectionWatch {
  const statuses = connection.status();
  let stopped = false;
  void (async () => {
    try {
      for await (const status of statuses) {
        if (stopped) break;
        if (!CHANGES.has(status.type)) continue;
        try {
          listener(status.type as ConnectionChange, detailOf(status));
        } catch {
          // A listener's failure must not end the watch: the next reconnect still has to be seen.
        }
      }
    } catch {
      // The iterator ends with an error when the connection closes with one; nothing to watch then.
    }
  })();
  return {
    stop() {
      stopped = true;
      // The status iterator is a QueuedIterator with stop() (which in v3 also unregisters it from
      // the connection); the public type only says AsyncIterable, and breaking out of for-await
      // would wait for the next status first.
      (statuses as { stop?: () => void }).stop?.();
    },
  };
}
