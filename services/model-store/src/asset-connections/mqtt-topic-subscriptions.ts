import type { MqttClient } from "mqtt";
import { AssetError } from "./asset-connection-types.ts";

export type MessageListener = (payload: Buffer, topic: string) => void;

/** Whether a topic filter has a wildcard ("+" or "#"); without one it matches only the equal topic name. */
export function hasWildcard(filter: string): boolean {
  return filter.includes("+") || filter.includes("#");
}

/** Whether a topic name matches a topic filter ("+" one level, "#" the rest; MQTT 3.1.1 §4.7). */
export function topicMatches(filter: string, topic: string): boolean {
  // §4.7.2: wildcards at the first level do not match topics starting with "$" ($SYS/…).
  if (topic.startsWith("$") && (filter.startsWith("+") || filter.startsWith("#"))) return false;
  const filterLevels = filter.split("/");
  const topicLevels = topic.split("/");
  for (let i = 0; i < filterLevels.length; i++) {
    const level = filterLevels[i];
    if (level === "#") return true;
    if (i >= topicLevels.length) return false;
    if (level !== "+" && level !== topicLevels[i]) return false;
  }
  return filterLevels.length === topicLevels.length;
}

/**
 * The broker subscriptions of one client session, shared by providers: FA³ST holds one
 * subscription per distinct topic string, so several providers on one telemetry topic (each with
 * its own `query`) cost one SUBSCRIBE and get every message once. A new session (reconnect) gets
 * a new instance; the runner starts its providers again on it, which restores the subscriptions.
 */
export class MqttTopicSubscriptions {
  private readonly listeners = new Map<string, Set<MessageListener>>();
  /**
   * The filters of `listeners` with a wildcard. A message is looked up by its topic name among the
   * others (a topic name never holds a wildcard, so the filter equal to it is the only plain one that
   * matches) and compared only with these: with 1,000 providers on 1,000 plain topics, matching every
   * filter against every message was most of the connection's CPU (bench/asset-ingest.ts).
   */
  private readonly wildcardFilters = new Set<string>();
  /** A SUBSCRIBE sent (or acknowledged) per filter. */
  private readonly subscribed = new Map<string, Promise<void>>();

  constructor(
    private readonly client: MqttClient,
    private readonly timeoutMs: number,
  ) {
    client.on("message", (topic, payload) => this.dispatch(topic, payload));
  }

  /** Adds a listener; the first one of a filter subscribes at QoS 1 and waits for the broker's answer. */
  async add(filter: string, listener: MessageListener): Promise<void> {
    let set = this.listeners.get(filter);
    if (!set) {
      this.listeners.set(filter, (set = new Set()));
      if (hasWildcard(filter)) this.wildcardFilters.add(filter);
    }
    // Before subscribing: retained messages may arrive before the SUBACK.
    set.add(listener);
    let subscribing = this.subscribed.get(filter);
    if (!subscribing) {
      subscribing = this.subscribe(filter);
      this.subscribed.set(filter, subscribing);
      subscribing.catch(() => {
        if (this.subscribed.get(filter) === subscribing) this.subscribed.delete(filter);
      });
    }
    try {
      await subscribing;
    } catch (error) {
      this.remove(filter, listener, false);
      throw error;
    }
  }

  /** Removes a listener; the last one of a filter unsubscribes (when the session is still open). */
  remove(filter: string, listener: MessageListener, unsubscribe = true): void {
    const set = this.listeners.get(filter);
    if (!set?.delete(listener) || set.size > 0) return;
    this.listeners.delete(filter);
    this.wildcardFilters.delete(filter);
    const wasSubscribed = this.subscribed.has(filter);
    this.subscribed.delete(filter);
    if (unsubscribe && wasSubscribed && this.client.connected) this.client.unsubscribe(filter, () => undefined);
  }

  private subscribe(filter: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new AssetError(`the broker did not answer the subscription to "${filter}" within ${this.timeoutMs} ms`, {
              retryable: true,
            }),
          ),
        this.timeoutMs,
      );
      this.client.subscribe(filter, { qos: 1 }, (error, granted) => {
        clearTimeout(timer);
        if (error)
          return reject(
            new AssetError(`subscribing to "${filter}" failed: ${error.message}`, { retryable: true, cause: error }),
          );
        // 0x80 in the SUBACK: the broker refused this filter (typically its ACL).
        if (granted?.some((grant) => grant.qos === 128))
          return reject(new AssetError(`the broker refused the subscription to "${filter}"`, { retryable: false }));
        resolve();
      });
    });
  }

  private dispatch(topic: string, payload: Buffer): void {
    const exact = this.listeners.get(topic);
    if (exact && !hasWildcard(topic)) for (const listener of exact) listener(payload, topic);
    for (const filter of this.wildcardFilters) {
      if (!topicMatches(filter, topic)) continue;
      const set = this.listeners.get(filter);
      if (set) for (const listener of set) listener(payload, topic);
    }
  }
}
