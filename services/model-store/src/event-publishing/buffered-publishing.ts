import type { EventBus, EventSubscription, MqttPublishingConfig } from "@twinport/shared";
import type { EventPublishing } from "./event-publishing.ts";
import type { MqttPublishingTarget } from "./mqtt-publishing-options.ts";
import { createOrderedPublisher } from "./ordered-publisher.ts";

export interface BufferedPublishingOptions {
  bus: EventBus;
  config: MqttPublishingConfig;
  target: MqttPublishingTarget;
  log: (message: string) => void;
}

/**
 * Embedded mode without an event log (memory persistence): the events come from the in-process
 * bus, in seq order, and wait in memory while the broker is away, at most `maxBufferedEvents`.
 * Past the bound the newest events are not kept (the ones waiting longest go first, in order);
 * the log names the seqs lost, once per outage. There is nothing to replay them from: a consumer
 * that needs them reads the model again (the seq user property shows the gap).
 */
export async function startBufferedPublishing(
  options: BufferedPublishingOptions,
): Promise<Pick<EventPublishing, "stop">> {
  const { bus, config, target, log } = options;
  const publisher = createOrderedPublisher({ config, target, log });
  let lostFrom: number | undefined;
  let lostTo = 0;
  const subscription: EventSubscription = await bus.subscribe({
    onEvent(event) {
      if (publisher.pending() >= config.maxBufferedEvents) {
        if (lostFrom === undefined) {
          lostFrom = event.seq;
          log(
            `MQTT publishing: ${config.maxBufferedEvents} events wait for ${target.display} (messageBus.maxBufferedEvents); events from seq ${event.seq} on are not published until it takes them again`,
          );
        }
        lostTo = event.seq;
        return;
      }
      if (lostFrom !== undefined) {
        log(
          `MQTT publishing: resumed at seq ${event.seq}; events seq ${lostFrom}..${lostTo} were not published (the buffer was full)`,
        );
        lostFrom = undefined;
      }
      publisher.push(event);
    },
  });
  return {
    async stop() {
      await subscription.unsubscribe().catch(() => undefined);
      await publisher.close();
    },
  };
}
