import { Events, type NatsConnection } from "nats";

/** The connection changes a component reacts to (nats' debug events are left out). */
export type ConnectionChange = "disconnect" | "reconnect" | "update" | "ldm" | "error";

const CHANGES = new Set<string>(Object.values(Events));

export interface ConnectionWatch {
  stop(): void;
}

/**
 * Calls `listener` for every change of the connection's state until `stop()` or the connection
 * closes. Each component watches on its own (the client allows several status iterators), so a
 * bus or client works with any connection, not only one made by connectNats.
 */
export function watchConnection(connection: NatsConnection, listener: (change: ConnectionChange, detail: string) => void): ConnectionWatch {
  const statuses = connection.status();
  let stopped = false;
  void (async () => {
    try {
      for await (const status of statuses) {
        if (stopped) break;
        if (!CHANGES.has(status.type)) continue;
        const detail = typeof status.data === "object" ? JSON.stringify(status.data) : String(status.data);
        try {
          listener(status.type as ConnectionChange, detail);
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
      // The status iterator of nats v2 is a QueuedIterator with stop(); the public type only says
      // AsyncIterable, and breaking out of for-await would wait for the next status first.
      (statuses as { stop?: () => void }).stop?.();
    },
  };
}
