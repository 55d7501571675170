import type { NatsConnection } from "nats";
import { ALL_EVENTS_SUBJECT, HEARTBEAT_SUBJECT, eventSubject, type ChangeEvent, type Heartbeat } from "../contracts/index.ts";
import type { EventBus, EventHandlers, EventSubscription } from "../engine/ports/index.ts";
import { watchConnection } from "./connection-watch.ts";
import { decodeJson, encodeJson } from "./wire.ts";

export interface NatsEventBusOptions {
  /** Owned by the caller: close() of the bus leaves it open. */
  connection: NatsConnection;
  /** Where a subscriber's exception or an undecodable message goes; default: stderr. */
  onSubscriberError?: (error: unknown) => void;
}

/**
 * The distributed EventBus: plain NATS publish/subscribe (fan-out to every subscriber, order kept
 * per publisher). Delivery is at most once: a subscriber that was disconnected gets `onReconnect`
 * and resyncs from the store; heartbeats let it notice a silently missed tail.
 */
export function createNatsEventBus(options: NatsEventBusOptions): EventBus {
  const { connection } = options;
  const reportError = options.onSubscriberError ?? ((error: unknown) => console.error("twinport: event subscriber failed:", error));
  const active = new Set<{ handlers: EventHandlers; stop(): void }>();
  let closed = false;

  // nats re-sends SUBs before it reports the reconnect, so a resync started from onReconnect
  // cannot miss events published after it.
  const watch = watchConnection(connection, (change) => {
    if (change !== "reconnect" && change !== "disconnect") return;
    for (const entry of [...active]) {
      try {
        if (change === "reconnect") entry.handlers.onReconnect?.();
        else entry.handlers.onDisconnect?.();
      } catch (error) {
        reportError(error);
      }
    }
  });

  function assertOpen(): void {
    if (closed) throw new Error("event bus is closed");
  }

  // One PING per event-loop turn serves every caller that asked before it was sent. The server
  // answers PONG behind whatever it already queued for this connection, and subscription callbacks
  // run as the messages are parsed: when the PONG resolves the flush, those events were handled.
  let pendingBarrier: Promise<void> | undefined;
  function barrier(): Promise<void> {
    pendingBarrier ??= new Promise<void>((resolve) => {
      setImmediate(() => {
        pendingBarrier = undefined;
        if (connection.isClosed()) return resolve();
        connection.flush().then(resolve, () => resolve());
      });
    });
    return pendingBarrier;
  }

  return {
    async publish(event: ChangeEvent) {
      assertOpen();
      connection.publish(eventSubject(event.kind), encodeJson(event));
    },
    async publishHeartbeat(heartbeat: Heartbeat) {
      assertOpen();
      connection.publish(HEARTBEAT_SUBJECT, encodeJson(heartbeat));
    },
    barrier,
    async subscribe(handlers): Promise<EventSubscription> {
      assertOpen();
      let live = true;
      const subscription = connection.subscribe(ALL_EVENTS_SUBJECT, {
        callback: (error, msg) => {
          if (!live) return;
          try {
            if (error) throw error;
            const body = decodeJson(msg.data);
            if (msg.subject === HEARTBEAT_SUBJECT) handlers.onHeartbeat?.(body as Heartbeat);
            else handlers.onEvent(body as ChangeEvent);
          } catch (failure) {
            reportError(failure);
          }
        },
      });
      const entry = {
        handlers,
        stop() {
          live = false;
          active.delete(entry);
          if (!connection.isClosed()) subscription.unsubscribe();
        },
      };
      active.add(entry);
      // Resolve only once the server knows the subscription: an event published right after
      // subscribe() returns, from any process, must reach it.
      await connection.flush();
      return {
        async unsubscribe() {
          if (!live) return;
          entry.stop();
          // Once this resolves the server has dropped the interest: nothing more is sent to it.
          if (!connection.isClosed()) await connection.flush().catch(() => undefined);
        },
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      watch.stop();
      for (const entry of [...active]) entry.stop();
    },
  };
}
