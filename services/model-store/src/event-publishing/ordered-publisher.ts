import { type ChangeEvent, type MqttPublishingConfig, stringifyLossless } from "@twinport/shared";
import mqtt, { type MqttClient } from "mqtt";
import { faaastMessageOf } from "./faaast-event-message.ts";
import type { MqttPublishingTarget } from "./mqtt-publishing-options.ts";

export interface OrderedPublisherOptions {
  config: MqttPublishingConfig;
  target: MqttPublishingTarget;
  log: (message: string) => void;
  /** Every event up to `seq` has been acknowledged by the broker (QoS 1, 2) or written (QoS 0). */
  onAcked?: (seq: number) => void;
  /** Publishes awaiting their acknowledgement at once. Default 64. */
  window?: number;
  /** First reconnect delay; doubles up to 5 s. Default 250 ms. */
  retryMs?: number;
}

export interface OrderedPublisher {
  /** Appends an event; it is published after every event pushed before it. */
  push(event: ChangeEvent): void;
  /** Events pushed and not yet acknowledged. */
  pending(): number;
  /** Drops every event not yet acknowledged (another replica took the publishing over). */
  clear(): void;
  isConnected(): boolean;
  close(): Promise<void>;
}

const MAX_RETRY_MS = 5000;

/**
 * Publishes events in seq order over one MQTT session at a time, `window` at once (the broker acks
 * in order on a session). When the session is lost, every event not yet acknowledged is sent again
 * on the next one, from the oldest: at least once, in order; a consumer may see an event again
 * (its seq user property tells it: not above the highest seen). mqtt.js's own reconnect and
 * offline queue are off, so nothing else re-sends behind our back and out of order.
 */
export function createOrderedPublisher(options: OrderedPublisherOptions): OrderedPublisher {
  const { config, target, log } = options;
  const window = options.window ?? 64;
  const baseRetryMs = options.retryMs ?? 250;
  /** Unacknowledged events, oldest first. */
  const queue: ChangeEvent[] = [];
  const acked = new Set<number>();
  /** How many of `queue` (from the head) were sent on the current session. */
  let sent = 0;
  let client: MqttClient | undefined;
  let generation = 0;
  let closed = false;
  let retryMs = baseRetryMs;
  let retryTimer: NodeJS.Timeout | undefined;
  let lastProblem: string | undefined;
  let everConnected = false;
  let failures = 0;

  const messageOf = (event: ChangeEvent) => {
    const { eventClass, body } = faaastMessageOf(event);
    return {
      topic: `${config.topicPrefix}${eventClass}`,
      // Lossless: the typed values are built from AAS JSON (values as text) and hold no
      // LosslessNumber today, but one that reached an event payload (a body parsed losslessly)
      // is written as its number, where JSON.stringify would write {"value":…,"isLosslessNumber":true}.
      payload: stringifyLossless(body),
      retain: config.retainValues && eventClass === "ValueChangeEventMessage",
    };
  };

  const settleHead = () => {
    let last: number | undefined;
    while (queue.length > 0 && acked.has(queue[0]!.seq)) {
      const head = queue.shift()!;
      acked.delete(head.seq);
      sent--;
      last = head.seq;
    }
    if (last !== undefined) options.onAcked?.(last);
  };

  const pump = () => {
    const current = client;
    if (!current?.connected) return;
    const myGeneration = generation;
    while (sent < queue.length && sent < window) {
      const event = queue[sent]!;
      sent++;
      const { topic, payload, retain } = messageOf(event);
      current.publish(
        topic,
        payload,
        {
          qos: config.qos,
          retain,
          ...(config.protocolVersion === 5
            ? {
                properties: {
                  contentType: "application/json",
                  userProperties: {
                    seq: String(event.seq),
                    kind: event.kind,
                    ...(event.correlationId ? { correlationId: event.correlationId } : {}),
                  },
                },
              }
            : {}),
        },
        (error) => {
          if (myGeneration !== generation) return; // a session that is gone: its events are re-sent
          if (error) {
            lastProblem = error.message;
            drop(current);
            return;
          }
          acked.add(event.seq);
          settleHead();
          pump();
        },
      );
    }
  };

  const drop = (which: MqttClient) => {
    if (client !== which) return;
    client = undefined;
    generation++;
    sent = 0;
    acked.clear();
    which.end(true);
    if (!closed) {
      log(`MQTT publishing: the connection to ${target.display} was lost (${lastProblem ?? "closed"}); reconnecting`);
      schedule();
    }
  };

  const schedule = () => {
    clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  };

  const connect = () => {
    if (closed) return;
    const created = mqtt.connect(target.options);
    let opened = false;
    // Always listened to: an 'error' event without a listener would end the process.
    created.on("error", (error) => {
      lastProblem = error.message;
    });
    created.once("connect", () => {
      opened = true;
      if (closed) {
        created.end(true);
        return;
      }
      client = created;
      retryMs = baseRetryMs;
      log(
        `MQTT publishing: connected to ${target.display}${everConnected ? `; re-sending ${queue.length} unacknowledged event(s)` : ""}`,
      );
      everConnected = true;
      failures = 0;
      lastProblem = undefined;
      pump();
    });
    created.on("close", () => {
      if (opened) {
        drop(created);
        return;
      }
      created.end(true);
      if (closed) return;
      failures++;
      if (failures === 1 || failures % 50 === 0)
        log(
          `MQTT publishing: cannot connect to ${target.display} (${lastProblem ?? "refused"}); retrying (attempt ${failures})`,
        );
      schedule();
    });
  };

  connect();

  return {
    push(event) {
      queue.push(event);
      pump();
    },
    pending: () => queue.length,
    clear() {
      queue.length = 0;
      acked.clear();
      sent = 0;
      generation++;
      // Events already on the wire of this session are not ours to track any more.
      const current = client;
      if (current) {
        client = undefined;
        current.end(true);
        schedule();
      }
    },
    isConnected: () => client?.connected === true,
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      const current = client;
      client = undefined;
      if (current?.connected) await current.endAsync(false).catch(() => current.end(true));
      else current?.end(true);
    },
  };
}
