import type { ChangeEvent, EventBus, MqttPublishingConfig } from "@twinport/shared";
import type { RedisRepository } from "../redis/redis-repository.ts";
import { startBufferedPublishing } from "./buffered-publishing.ts";
import { startDurablePublishing } from "./durable-publishing.ts";
import type { EventPublishing } from "./event-publishing.ts";
import { mqttPublishingTarget } from "./mqtt-publishing-options.ts";

export interface EventPublishingOptions {
  config: MqttPublishingConfig;
  bus: EventBus;
  /** With Redis: the event log and the lease make publishing durable and single-owner. */
  redis?: {
    repository: RedisRepository;
    fetchEvents: (after: number, limit: number) => Promise<ChangeEvent[] | undefined>;
    owner: string;
  };
  log: (message: string) => void;
}

/**
 * Publishes every committed change event to the configured MQTT broker in FA³ST's MessageBusMqtt
 * scheme (docs/events-mqtt.md, docs/adr/0030). Returns once configured; connecting goes on in
 * the background, so an unreachable broker never delays the start. Key store problems throw.
 */
export async function startEventPublishing(options: EventPublishingOptions): Promise<EventPublishing> {
  const target = await mqttPublishingTarget(options.config);
  options.log(
    `MQTT publishing: change events go to ${target.display}, topics ${options.config.topicPrefix}<FA³ST event message>, QoS ${options.config.qos}`,
  );
  const broker = `${target.display} (topics ${options.config.topicPrefix}…)`;
  if (options.redis) {
    const durable = await startDurablePublishing({
      repository: options.redis.repository,
      fetchEvents: options.redis.fetchEvents,
      bus: options.bus,
      config: options.config,
      target,
      owner: options.redis.owner,
      log: options.log,
    });
    return { broker, stop: () => durable.stop() };
  }
  const buffered = await startBufferedPublishing({
    bus: options.bus,
    config: options.config,
    target,
    log: options.log,
  });
  return { broker, stop: () => buffered.stop() };
}
