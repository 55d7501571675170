import { parseJsonLossless, stringifyLossless } from "@twinport/shared";
import { AssetError, type AssetReading } from "./asset-connection-types.ts";
import { valueOnlyBodyFromJson } from "./asset-value.ts";
import { type JsonPath, queryOne } from "./json-path.ts";

/** Largest MQTT message taken as a value (the same bound as an HTTP asset's answer). */
export const MAX_MQTT_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * The value a subscription provider takes from one MQTT message (docs/reference/faaast-asset-connections.md §2.2,
 * §5.3): the payload is JSON (format "JSON", the only one), `query` selects exactly one value, or
 * the whole payload is the value. Throws an AssetError for a message that does not fit; the caller
 * logs it and drops the message. Returns undefined for an empty payload, which in MQTT clears a
 * retained message rather than carrying a value.
 */
export function mqttMessageReading(
  payload: Buffer,
  topic: string,
  query: JsonPath | undefined,
): AssetReading | undefined {
  if (payload.length === 0) return undefined;
  // As an HTTP asset's answer (http-client.ts): one 60 MB message stored as a value stalled the
  // server for seconds and took gigabytes; a device value is never that large.
  if (payload.length > MAX_MQTT_MESSAGE_BYTES)
    throw new AssetError(
      `a message on "${topic}" has ${payload.length} bytes, over the limit of ${MAX_MQTT_MESSAGE_BYTES}; dropped`,
      { retryable: false },
    );
  let document: unknown;
  try {
    document = parseJsonLossless(payload.toString("utf8"), { foreign: true });
  } catch (error) {
    throw new AssetError(`a message on "${topic}" is not JSON (${(error as Error).message}); dropped`, {
      retryable: false,
    });
  }
  let value = document;
  if (query) {
    try {
      value = queryOne(document, query);
    } catch (error) {
      throw new AssetError(`a message on "${topic}": ${(error as Error).message}; dropped`, { retryable: false });
    }
  }
  return { key: stringifyLossless(value), bodyFor: (element) => valueOnlyBodyFromJson(element, value) };
}

/**
 * `mqttMessageReading`, parsed only when it is used: the runner keeps only the newest reading of a
 * provider while the previous one is being written (latest wins), so under load most messages are
 * replaced before anyone looks at them, and parsing them would be wasted (bench/asset-ingest.ts).
 * A message that does not fit throws when its key or body is first asked for, which happens where
 * the runner delivers it, so it is logged and dropped there, as before. Undefined for an empty
 * payload (checked at once: that is no reading at all).
 */
export function lazyMqttMessageReading(
  payload: Buffer,
  topic: string,
  query: JsonPath | undefined,
): AssetReading | undefined {
  if (payload.length === 0) return undefined;
  let parsed: AssetReading | undefined;
  const reading = () => (parsed ??= mqttMessageReading(payload, topic, query)!);
  return {
    get key() {
      return reading().key;
    },
    bodyFor: (element) => reading().bodyFor(element),
  };
}
