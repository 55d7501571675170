import { z } from "zod";

/*
 * Publishing every committed change event to an MQTT broker (docs/events-mqtt.md, docs/adr/0030).
 * Embedded mode: FA³ST's `messagebus.mqtt.MessageBusMqtt` class, with FA³ST's property names, is
 * the internal bus plus publishing. Distributed mode: the bus is NATS; an `mqtt` object inside the
 * `messagebus.nats.MessageBusNats` entry, with the same properties, adds publishing there.
 * In its own file so that other changes to message-bus.ts merge without conflicts.
 */

export const MESSAGE_BUS_MQTT_CLASS = "messagebus.mqtt.MessageBusMqtt";

/** FA³ST's CertificateConfig (a key store); keyStoreType PKCS12 (FA³ST's) or PEM (our extension). */
const keyStoreSchema = z.strictObject({
  keyStoreType: z.string().default("PKCS12"),
  keyStorePath: z.string().default(""),
  keyStorePassword: z.string().optional(),
  keyAlias: z.string().optional(),
  keyPassword: z.string().optional(),
});

/** The properties both places share: FA³ST's names where FA³ST has the setting, ours otherwise. */
const publishingShape = {
  /** FA³ST: host name of the broker, without a scheme. */
  host: z.string().min(1).default("localhost"),
  /** FA³ST: the plain TCP port. */
  port: z.number().int().min(1).max(65535).default(1883),
  /** FA³ST: the TLS port, used when a client certificate is configured (as FA³ST's Paho client does). */
  sslPort: z.number().int().min(1).max(65535).default(8883),
  /** FA³ST: connect over WebSocket (ws://host:websocketPort, wss://host:sslWebsocketPort with TLS). */
  useWebsocket: z.boolean().default(false),
  websocketPort: z.number().int().min(1).max(65535).default(9001),
  sslWebsocketPort: z.number().int().min(1).max(65535).default(443),
  /** FA³ST: the client's key store; a non-empty keyStorePath switches to TLS on sslPort. */
  clientCertificate: keyStoreSchema.optional(),
  username: z.string().optional(),
  password: z.string().optional(),
  /** FA³ST's default is "FAST MQTT MessageBus". */
  clientId: z.string().min(1).default("FAST MQTT MessageBus"),
  /** FA³ST: topics are topicPrefix + the event message class, e.g. "events/ValueChangeEventMessage". */
  topicPrefix: z.string().default("events/"),
  /**
   * Ours: the broker as a URI, as FA³ST's MqttAssetConnection writes it (tcp://, ssl://, ws://, wss://,
   * or mqtt://, mqtts://), instead of host/port/sslPort/useWebsocket. A TLS URI without a client
   * certificate is server-authenticated TLS.
   */
  serverUri: z
    .string()
    .refine(
      (value) =>
        URL.canParse(value) &&
        ["tcp:", "ssl:", "ws:", "wss:", "mqtt:", "mqtts:"].includes(new URL(value).protocol) &&
        new URL(value).hostname !== "",
      { error: "expected a broker URI such as tcp://host:1883, ssl://host:8883 or mqtts://host:8883" },
    )
    .optional(),
  /** Ours: certificates to trust for the broker besides the usual CAs (PEM or PKCS12 key store). */
  trustedCertificates: keyStoreSchema.optional(),
  /** Ours: QoS of every publish. 1: at least once (each event is acknowledged by the broker). */
  qos: z.union([z.literal(0), z.literal(1), z.literal(2)]).default(1),
  /** Ours: publish ValueChangeEventMessage with the retain flag (a new subscriber gets the last value change). */
  retainValues: z.boolean().default(false),
  /** Ours: 5 (MQTT 5, with the event's seq as a user property) or 4 (MQTT 3.1.1, as FA³ST's Paho client). */
  protocolVersion: z.union([z.literal(4), z.literal(5)]).default(5),
  /**
   * Ours, in-memory embedded mode only (no event log to replay from): events held while the broker
   * is unreachable; beyond it the oldest are dropped, and the log says which.
   */
  maxBufferedEvents: z.number().int().min(1).default(10_000),
};

export const mqttPublishingSchema = z.strictObject(publishingShape);

/**
 * FA³ST keys of MessageBusMqtt about its embedded Moquette broker, which Twinport does not have.
 * Those Twinport simply lacks (its server certificate, users, password file) are not in the schema:
 * they are ignored with a warning through the one registry of FA³ST options (faaast-options.ts).
 */
const embeddedBrokerShape = {
  /**
   * FA³ST's default is true (start an embedded broker). Twinport has none: true is refused, since
   * ignoring it would let consumers wait for a broker nobody started.
   */
  useInternalServer: z
    .boolean()
    .default(true)
    .refine((value) => value === false, {
      error:
        'Twinport has no embedded MQTT broker: set "useInternalServer": false and point host/port (or url) at your broker (e.g. mosquitto). FA³ST\'s default is true, so the key has to be written',
    }),
  /** FA³ST's earlier spelling of clientCertificate (a PKCS#12 key store); used when clientCertificate is absent. */
  clientKeystorePath: z.string().optional(),
  clientKeystorePassword: z.string().optional(),
};

export const messageBusMqttShape = { ...publishingShape, ...embeddedBrokerShape };

export type MqttPublishingConfig = z.output<typeof mqttPublishingSchema>;
export type MqttKeyStoreConfig = z.output<typeof keyStoreSchema>;

/** Only the publishing settings of a parsed MessageBusMqtt entry or NATS `mqtt` object. */
export function mqttPublishingOf(entry: Record<string, unknown>): MqttPublishingConfig {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(publishingShape)) if (entry[key] !== undefined) out[key] = entry[key];
  if (out.clientCertificate === undefined && typeof entry.clientKeystorePath === "string" && entry.clientKeystorePath) {
    out.clientCertificate = {
      keyStoreType: "PKCS12",
      keyStorePath: entry.clientKeystorePath,
      ...(typeof entry.clientKeystorePassword === "string" ? { keyStorePassword: entry.clientKeystorePassword } : {}),
    };
  }
  return out as MqttPublishingConfig;
}

/** The MQTT publishing a `messageBus` entry asks for: MessageBusMqtt itself, or NATS's `mqtt` object; else undefined. */
export function mqttPublishingFor(messageBus: {
  "@class": string;
  mqtt?: MqttPublishingConfig;
}): MqttPublishingConfig | undefined {
  if (messageBus["@class"] === MESSAGE_BUS_MQTT_CLASS) return mqttPublishingOf(messageBus as Record<string, unknown>);
  return messageBus.mqtt;
}
