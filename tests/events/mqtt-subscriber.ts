/**
 * The consumer's side of MQTT event publishing in tests: a real mqtt.js client subscribed to
 * `<prefix>#` that keeps every message with its topic, JSON body and the seq user property.
 */
import { connectAsync, type IClientOptions, type MqttClient } from "mqtt";

export interface ReceivedEvent {
  topic: string;
  body: any;
  /** The payload as sent (JSON.parse of `body` rounds numbers beyond 2^53). */
  text: string;
  /** From the MQTT 5 user property `seq` (our extension). */
  seq: number;
  retain: boolean;
}

export interface EventSubscriber {
  client: MqttClient;
  readonly messages: ReceivedEvent[];
  /** Messages received from index `from` on, once `count` of them are there. */
  waitFor(count: number, from?: number, timeoutMs?: number): Promise<ReceivedEvent[]>;
  /** Waits until a message with this seq arrived. */
  waitForSeq(seq: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function subscribeEvents(
  url: string,
  topicPrefix: string,
  options: IClientOptions = {},
): Promise<EventSubscriber> {
  const client = await connectAsync(url, { protocolVersion: 5, reconnectPeriod: 100, ...options });
  const messages: ReceivedEvent[] = [];
  client.on("message", (topic, payload, packet) => {
    const property = packet.properties?.userProperties?.seq;
    const seq = Number(Array.isArray(property) ? property[0] : property);
    const text = payload.toString("utf8");
    messages.push({ topic, body: JSON.parse(text), text, seq, retain: packet.retain });
  });
  await client.subscribeAsync(`${topicPrefix}#`, { qos: 1 });
  const until = async (ready: () => boolean, what: () => string, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!ready()) {
      if (Date.now() > deadline) throw new Error(`${what()} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return {
    client,
    messages,
    async waitFor(count, from = 0, timeoutMs = 15_000) {
      await until(
        () => messages.length - from >= count,
        () =>
          `expected ${count} messages after #${from}, got ${messages.length - from}: ${JSON.stringify(messages.slice(from).map((m) => [m.topic, m.seq]))}`,
        timeoutMs,
      );
      return messages.slice(from, from + count);
    },
    async waitForSeq(seq, timeoutMs = 15_000) {
      await until(
        () => messages.some((m) => m.seq === seq),
        () => `no message with seq ${seq}; seqs: ${messages.map((m) => m.seq).join(",")}`,
        timeoutMs,
      );
    },
    async close() {
      await client.endAsync(true);
    },
  };
}
