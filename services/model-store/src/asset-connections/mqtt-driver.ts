import { randomUUID } from "node:crypto";
import { rootCertificates } from "node:tls";
import type { MqttAssetConnectionConfig, ProviderTarget } from "@twinport/shared";
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import {
  type AssetConnectionDriver,
  AssetError,
  type Log,
  type ProviderConfigs,
  type ReadSource,
} from "./asset-connection-types.ts";
import { propertyLexical, valueOnlyJson } from "./asset-value.ts";
import { compileJsonPath } from "./json-path.ts";
import { mqttBrokerAddress } from "./mqtt-broker-address.ts";
import { lazyMqttMessageReading } from "./mqtt-message-reading.ts";
import { MqttTopicSubscriptions } from "./mqtt-topic-subscriptions.ts";
import { fillTemplate } from "./payload-template.ts";
import { writesPerTurn } from "./writes-per-turn.ts";

type MqttProviderConfigs = Extract<ProviderConfigs, { kind: "mqtt" }>;

export interface MqttDriverOptions {
  config: MqttAssetConnectionConfig;
  /** Extra trusted certificates (PEM), read from `trustedCertificates` by the caller. */
  trustedCertificates?: string[];
  /** Key and chain (PEM) shown to a broker over TLS that asks for a client certificate. */
  clientCertificate?: { key: string; cert: string[] };
  /** Bounds connecting, subscribing and each publish (core.assetConnectionReadTimeout). */
  timeoutMs: number;
  log: Log;
}

/** FA³ST's default client id: a random UUID without its dashes. */
export function randomClientId(): string {
  return randomUUID().replaceAll("-", "");
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AssetError(`${what}: no answer within ${ms} ms`, { retryable: true })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * MQTT asset connection (docs/reference/faaast-asset-connections.md §5) with mqtt.js: one client session per
 * connection, clean session, MQTT 3.1.1, QoS 1 both ways, no last will, as FA³ST's Paho client.
 *
 * Reconnecting is the runner's (mqtt.js's own `reconnectPeriod` is 0): a lost session is reported
 * through `onLost`, the runner reconnects with its back-off and shows the state and the broker's
 * last answer in its status, and it starts the subscription providers again on the new session,
 * which restores every subscription. One place reconnects, so what the status says is true.
 *
 * Value providers only publish: MQTT has nothing to read on demand, so the model keeps the last
 * value and a read never fails (FA³ST v1.3.0 fails the API read; its main branch, with
 * readWriteMode WRITE, behaves like this).
 */
export function createMqttDriver(options: MqttDriverOptions): AssetConnectionDriver<MqttProviderConfigs> {
  const { config, timeoutMs, log } = options;
  const address = mqttBrokerAddress(config.serverUri);
  const clientId = config.clientId?.trim() ? config.clientId : randomClientId();
  const lostListeners: ((reason: string) => void)[] = [];
  let client: MqttClient | undefined;
  let subscriptions: MqttTopicSubscriptions | undefined;
  let closed = false;

  const clientOptions = (): IClientOptions => ({
    protocol: address.protocol,
    hostname: address.hostname,
    host: address.hostname,
    port: address.port,
    ...(address.path !== undefined ? { path: address.path } : {}),
    clientId,
    protocolVersion: 4,
    clean: true,
    reconnectPeriod: 0,
    connectTimeout: timeoutMs,
    resubscribe: false,
    // Paho sends the user name only when it is not blank, and then a missing password as empty.
    ...(config.username?.trim() ? { username: config.username, password: config.password ?? "" } : {}),
    ...(address.tls
      ? {
          rejectUnauthorized: true,
          ...(options.trustedCertificates?.length ? { ca: [...rootCertificates, ...options.trustedCertificates] } : {}),
          ...(options.clientCertificate
            ? { key: options.clientCertificate.key, cert: options.clientCertificate.cert.join("\n") }
            : {}),
        }
      : {}),
  });

  const teardown = async (graceful: boolean) => {
    const old = client;
    client = undefined;
    subscriptions = undefined;
    if (!old) return;
    // A clean stop says DISCONNECT (and waits a moment for acknowledgements); a dead session is dropped.
    if (graceful && old.connected)
      await withTimeout(old.endAsync(false), 1000, "disconnecting").catch(() => old.end(true));
    else old.end(true);
  };

  const open = async (): Promise<void> => {
    const created = mqtt.connect(clientOptions());
    // One socket write per turn for the PUBACKs of what arrived in it (see writes-per-turn.ts).
    writesPerTurn(created.stream);
    let lastError: string | undefined;
    // Always listened to: an 'error' event without a listener would end the process.
    created.on("error", (error) => {
      lastError = error.message;
    });
    // Only our own listeners are removed afterwards: mqtt.js listens to its 'connect' and 'close' too.
    let settle: { connect(): void; error(error: Error): void; close(): void } | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        settle = {
          connect: () => resolve(),
          error: (error) => reject(error),
          close: () => reject(new Error(lastError ?? "the broker closed the connection")),
        };
        created.once("connect", settle.connect);
        created.once("error", settle.error);
        created.once("close", settle.close);
      });
    } catch (error) {
      created.end(true);
      throw new AssetError((error as Error).message || String(error), { retryable: true, cause: error });
    } finally {
      created.off("connect", settle!.connect);
      created.off("error", settle!.error);
      created.off("close", settle!.close);
    }
    created.on("close", () => {
      if (client !== created) return;
      void teardown(false);
      const reason = lastError
        ? `the connection to the broker was lost: ${lastError}`
        : "the connection to the broker was lost";
      for (const listener of lostListeners) listener(reason);
    });
    client = created;
    subscriptions = new MqttTopicSubscriptions(created, timeoutMs);
  };

  return {
    kind: "mqtt",
    endpoint: address.display,
    async connect() {
      if (closed) throw new AssetError("the asset connection is closed", { retryable: false });
      await teardown(false);
      await open();
    },
    async disconnect() {
      await teardown(true);
    },
    onLost(listener) {
      lostListeners.push(listener);
    },
    valueProvider(target: ProviderTarget, provider) {
      const canWrite = provider.readWriteMode === "WRITE" || provider.readWriteMode === "READ_WRITE";
      if (!canWrite)
        log(
          `value provider of ${target.submodelId} ${target.idShortPath}: readWriteMode ${provider.readWriteMode} publishes nothing, and MQTT has nothing to read: it does nothing`,
        );
      const template = provider.template?.trim() ? provider.template : "${value}";
      return {
        target,
        ...(canWrite
          ? {
              async write(element) {
                propertyLexical(element); // only Property values are written (FA³ST)
                const payload = fillTemplate(template, new Map([["value", valueOnlyJson(element)]]));
                const session = client;
                if (!session?.connected)
                  throw new AssetError(`not connected to ${address.display}`, { retryable: true });
                try {
                  await withTimeout(
                    session.publishAsync(provider.topic, payload, { qos: 1, retain: false }),
                    timeoutMs,
                    `publishing to "${provider.topic}"`,
                  );
                } catch (error) {
                  if (error instanceof AssetError) throw error;
                  throw new AssetError(`publishing to "${provider.topic}" failed: ${(error as Error).message}`, {
                    retryable: true,
                    cause: error,
                  });
                }
              },
            }
          : {}),
      };
    },
    subscriptionProvider(target, provider) {
      const query = provider.query?.trim() ? compileJsonPath(provider.query) : undefined;
      const read: ReadSource = {
        mode: "push",
        async start(sink) {
          const session = subscriptions;
          if (!session) throw new AssetError(`not connected to ${address.display}`, { retryable: true });
          const listener = (payload: Buffer, topic: string) => {
            // Parsed when delivered: a message replaced by a newer one before that costs nothing.
            const reading = lazyMqttMessageReading(payload, topic, query);
            if (reading) sink.reading(reading);
          };
          await session.add(provider.topic, listener);
          return async () => session.remove(provider.topic, listener);
        },
      };
      return { target, read };
    },
    operationProvider() {
      // The configuration schema refuses MQTT operation providers before anything starts.
      throw new Error("MQTT asset connections have no operation providers");
    },
    async close() {
      closed = true;
      await teardown(true);
    },
  };
}
