import type { Msg } from "nats";

/**
 * The wire format between StoreClient and responder: JSON bodies, metadata in NATS headers.
 * The command itself (with its correlationId) is the JSON body; the time budget is a header.
 */

/**
 * Milliseconds the caller still waits for this request. Relative, not an absolute deadline, so a
 * clock skew between the gateway's and the model-store's machines does not shorten or stretch it.
 */
export const BUDGET_HEADER = "Twinport-Budget-Ms";

const encoder = new TextEncoder();
// fatal: a broken byte sequence (e.g. a lost chunk) is an error, not silently replaced characters.
const decoder = new TextDecoder("utf-8", { fatal: true });

export function encodeJson(value: unknown): Uint8Array {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError("value has no JSON form");
  return encoder.encode(text);
}

export function decodeJson(data: Uint8Array): unknown {
  return JSON.parse(decoder.decode(data));
}

/** The server's status message for a request whose subject nobody subscribes to. */
export function isNoResponders(msg: Msg): boolean {
  return msg.data.length === 0 && msg.headers?.code === 503;
}

export function budgetOf(msg: Msg): number | undefined {
  const budget = Number(msg.headers?.get(BUDGET_HEADER) || NaN);
  return Number.isFinite(budget) && budget > 0 ? budget : undefined;
}
