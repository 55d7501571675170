import type { ChangeEvent } from "../contracts/index.ts";
import type { EventBus, EventHandlers } from "../engine/ports/index.ts";
import type { ProcessMetrics } from "./process-metrics.ts";

/**
 * The bus with every delivered event measured: lag = delivery time − commit time (`event.time`).
 * Wrapping the subscriber side measures what a mirror actually experiences (relay, NATS, parsing).
 */
export function meteredEventBus(bus: EventBus, metrics: ProcessMetrics, now: () => number = Date.now): EventBus {
  return {
    publish: (event) => bus.publish(event),
    publishHeartbeat: (heartbeat) => bus.publishHeartbeat(heartbeat),
    subscribe(handlers: EventHandlers) {
      return bus.subscribe({
        ...handlers,
        onEvent(event: ChangeEvent) {
          const committed = Date.parse(event.time);
          if (Number.isFinite(committed)) metrics.observeEventLag((now() - committed) / 1000);
          handlers.onEvent(event);
        },
      });
    },
    close: () => bus.close(),
  };
}
