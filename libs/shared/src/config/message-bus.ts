import { z } from "zod";
import { natsUrlSchema } from "./backend-urls.ts";
import type { ClassedSection } from "./class-names.ts";
import { MESSAGE_BUS_MQTT_CLASS, messageBusMqttShape, mqttPublishingSchema } from "./message-bus-mqtt.ts";

export const MESSAGE_BUS_INTERNAL_CLASS = "messagebus.internal.MessageBusInternal";
export const MESSAGE_BUS_NATS_CLASS = "messagebus.nats.MessageBusNats";

/** The HTTP endpoints' read cache (docs/adr/0014), in either mode. Ours. */
const readCacheSettings = {
  /** Longest time a read answer is served from the cache, which change events keep current; 0 turns it off. */
  readCacheMaxAgeMs: z.number().int().min(0).default(5000),
  /** Bound of the read cache's answers, in bytes. */
  readCacheMaxBytes: z
    .number()
    .int()
    .min(0)
    .default(64 * 1024 * 1024),
};

export const messageBusInternalSchema = z.strictObject({
  "@class": z.literal(MESSAGE_BUS_INTERNAL_CLASS),
  ...readCacheSettings,
});

export const messageBusNatsSchema = z.strictObject({
  "@class": z.literal(MESSAGE_BUS_NATS_CLASS),
  url: natsUrlSchema.default("nats://127.0.0.1:4222"),
  /** Deadline of one request to the model-store (the nats client's own default of 1 s is too short). */
  requestTimeoutMs: z.number().int().min(1).default(5000),
  ...readCacheSettings,
  /** Also publish every change event to an MQTT broker (docs/events-mqtt.md): read by the model-store. */
  mqtt: mqttPublishingSchema.optional(),
});

/** FA³ST's MQTT message bus: in Twinport the internal bus plus MQTT publishing (embedded mode). */
export const messageBusMqttSchema = z.strictObject({
  "@class": z.literal(MESSAGE_BUS_MQTT_CLASS),
  ...messageBusMqttShape,
  ...readCacheSettings,
});

export type MessageBusInternalConfig = z.output<typeof messageBusInternalSchema>;
export type MessageBusNatsConfig = z.output<typeof messageBusNatsSchema>;
export type MessageBusMqttConfig = z.output<typeof messageBusMqttSchema>;
export type MessageBusConfig = MessageBusInternalConfig | MessageBusNatsConfig | MessageBusMqttConfig;

export const messageBusSection: ClassedSection = {
  what: "messageBus",
  known: [MESSAGE_BUS_INTERNAL_CLASS, MESSAGE_BUS_NATS_CLASS, MESSAGE_BUS_MQTT_CLASS],
  schemaFor(suffix) {
    switch (suffix) {
      case MESSAGE_BUS_INTERNAL_CLASS:
        return messageBusInternalSchema;
      case MESSAGE_BUS_NATS_CLASS:
        return messageBusNatsSchema;
      case MESSAGE_BUS_MQTT_CLASS:
        return messageBusMqttSchema;
      default:
        return undefined;
    }
  },
};
