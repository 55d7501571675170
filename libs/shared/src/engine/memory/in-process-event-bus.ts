import type { ChangeEvent, Heartbeat } from "../../contracts/index.ts";
import type { EventBus, EventHandlers, EventSubscription } from "../ports/index.ts";

export interface InProcessEventBusOptions {
  /** Where a subscriber's exception goes; it never reaches the publisher or other subscribers. */
  onSubscriberError?: (error: unknown) => void;
}

type Delivery = { event: ChangeEvent } | { heartbeat: Heartbeat };

/**
 * The embedded-mode EventBus: synchronous fan-out, in publish order, to every subscriber.
 *
 * A subscriber that publishes from inside its handler does not get its event delivered "in the
 * middle" of the current one: deliveries are queued and drained in order, so every subscriber sees
 * the same order, as over NATS.
 */
export function createInProcessEventBus(options: InProcessEventBusOptions = {}): EventBus {
  const reportError =
    options.onSubscriberError ?? ((error: unknown) => console.error("twinport: event subscriber failed:", error));
  const subscribers = new Set<EventHandlers>();
  /**
   * The subscribers as of the last change to them: delivering an event walks this array instead of
   * copying the set for every event (one copy per subscribe or unsubscribe, not one per write).
   */
  let snapshot: EventHandlers[] = [];
  const queue: Delivery[] = [];
  let draining = false;
  let closed = false;

  function deliver(delivery: Delivery, handlers: EventHandlers): void {
    try {
      if ("event" in delivery) handlers.onEvent(delivery.event);
      else handlers.onHeartbeat?.(delivery.heartbeat);
    } catch (error) {
      reportError(error);
    }
  }

  function enqueue(delivery: Delivery): void {
    if (closed) throw new Error("event bus is closed");
    queue.push(delivery);
    if (draining) return;
    draining = true;
    try {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        // A snapshot, so a subscriber added during delivery starts with the next event; one removed
        // during delivery gets nothing more. A change replaces the array, never alters it.
        const current = snapshot;
        for (let i = 0; i < current.length; i++) {
          const handlers = current[i]!;
          if (subscribers.has(handlers)) deliver(next, handlers);
        }
      }
    } finally {
      draining = false;
    }
  }

  return {
    async publish(event) {
      enqueue({ event });
    },
    async publishHeartbeat(heartbeat) {
      enqueue({ heartbeat });
    },
    async subscribe(handlers): Promise<EventSubscription> {
      if (closed) throw new Error("event bus is closed");
      // Wrap, so the same handlers object subscribed twice counts as two subscriptions.
      const own: EventHandlers = {
        onEvent: (event) => handlers.onEvent(event),
        onHeartbeat: (heartbeat) => handlers.onHeartbeat?.(heartbeat),
      };
      subscribers.add(own);
      snapshot = [...subscribers];
      return {
        async unsubscribe() {
          if (subscribers.delete(own)) snapshot = [...subscribers];
        },
      };
    },
    async close() {
      closed = true;
      subscribers.clear();
      snapshot = [];
      queue.length = 0;
    },
  };
}
