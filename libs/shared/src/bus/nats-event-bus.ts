import type { NatsConnection } from "@nats-io/nats-core";
import {
  ALL_EVENTS_SUBJECT,
  type ChangeEvent,
  eventSubject,
  HEARTBEAT_SUBJECT,
  type Heartbeat,
} from "../contracts/index.ts";
import type { EventBus, EventHandlers, EventSubscription } from "../engine/ports/index.ts";
import { watchConnection } from "./connection-watch.ts";
import { createEventOrder, type EventOrder } from "./event-order.ts";
import { publishBatchFor } from "./publish-batch.ts";
import { storeIncarnations } from "./store-incarnations.ts";
import { decodeJson, encodeJson } from "./wire.ts";

export interface NatsEventBusOptions {
  /** Owned by the caller: close() of the bus leaves it open. */
  connection: NatsConnection;
  /** Where a subscriber's exception or an undecodable message goes; default: stderr. */
  onSubscriberError?: (error: unknown) => void;
  /**
   * Reads committed events from the store's log (GetEvents): how a subscription fills a gap that
   * did not close by itself (event-order.ts). Without it a gap goes to the subscriber as it is.
   */
  fetchEvents?: (after: number, limit: number) => Promise<ChangeEvent[] | undefined>;
  /** How long events may arrive out of order before the log is asked. Default 100 ms. */
  reorderWindowMs?: number;
}

/**
 * The distributed EventBus: NATS publish/subscribe (fan-out to every subscriber). Every model-store
 * replica publishes its own commits' events, so each subscription puts them back into seq order
 * and fills gaps from the store's event log (event-order.ts); duplicates are dropped. A subscriber
 * that was disconnected gets `onReconnect` and resyncs from the store; one whose store lost its data
 * in Redis (a heartbeat names a new store incarnation) gets `onStoreReplaced`.
 */
export function createNatsEventBus(options: NatsEventBusOptions): EventBus {
  const { connection } = options;
  const reportError =
    options.onSubscriberError ?? ((error: unknown) => console.error("twinport: event subscriber failed:", error));
  const active = new Set<{ handlers: EventHandlers; order: EventOrder; stop(): void }>();
  const batch = publishBatchFor(connection);
  let closed = false;

  // nats re-sends SUBs before it reports the reconnect, so a resync started from onReconnect
  // cannot miss events published after it.
  const watch = watchConnection(connection, (change) => {
    if (change !== "reconnect" && change !== "disconnect") return;
    for (const entry of [...active]) {
      try {
        if (change === "reconnect") {
          entry.order.reset();
          entry.handlers.onReconnect?.();
        } else entry.handlers.onDisconnect?.();
      } catch (error) {
        reportError(error);
      }
    }
  });

  function assertOpen(): void {
    if (closed) throw new Error("event bus is closed");
  }

  // A PING serves every caller that asked before it was sent. The server answers PONG behind
  // whatever it already queued for this connection, and subscription callbacks run as the messages
  // are parsed: when the PONG resolves the flush, those events were handled. Callers of one
  // event-loop turn share a PING, sent at the end of that turn; each turn with callers sends its
  // own, even while earlier ones are out (ADR 0038's amendment: holding callers for the PING after
  // the one out made every hit wait up to two round trips, and a gateway under read load served
  // 9-18 % fewer GETs for it).
  let pendingBarrier: Promise<void> | undefined;
  function barrier(): Promise<void> {
    pendingBarrier ??= new Promise<void>((resolve) => {
      setImmediate(() => {
        pendingBarrier = undefined;
        if (connection.isClosed()) return resolve();
        connection.flush().then(
          () => resolve(),
          () => resolve(),
        );
      });
    });
    return pendingBarrier;
  }

  return {
    async publish(event: ChangeEvent) {
      assertOpen();
      // The shared batch: the event and the command reply that follows it leave in one write.
      batch.publish(eventSubject(event.kind), encodeJson(event), undefined, reportError);
    },
    async publishHeartbeat(heartbeat: Heartbeat) {
      assertOpen();
      batch.publish(HEARTBEAT_SUBJECT, encodeJson(heartbeat), undefined, reportError);
    },
    barrier,
    async subscribe(handlers): Promise<EventSubscription> {
      assertOpen();
      let live = true;
      const incarnations = storeIncarnations();
      const order = createEventOrder({
        deliver: (event) => handlers.onEvent(event),
        deliverHeartbeat: (heartbeat) => handlers.onHeartbeat?.(heartbeat),
        fetch: options.fetchEvents,
        windowMs: options.reorderWindowMs,
        onError: reportError,
      });
      const subscription = connection.subscribe(ALL_EVENTS_SUBJECT, {
        callback: (error, msg) => {
          if (!live) return;
          try {
            if (error) throw error;
            const body = decodeJson(msg.data);
            if (msg.subject === HEARTBEAT_SUBJECT) {
              const heartbeat = body as Heartbeat;
              if (incarnations.replaced(heartbeat.incarnation)) {
                order.reset();
                if (handlers.onStoreReplaced) handlers.onStoreReplaced();
                else handlers.onReconnect?.();
              }
              order.heartbeat(heartbeat);
            } else {
              const event = body as ChangeEvent;
              order.event(event);
              if (order.isHeld(event.seq)) handlers.onEventHeld?.(event);
            }
          } catch (failure) {
            reportError(failure);
          }
        },
      });
      const entry = {
        handlers,
        order,
        stop() {
          live = false;
          order.close();
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
