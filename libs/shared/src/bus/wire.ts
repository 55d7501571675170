import type { Msg } from "@nats-io/nats-core";
import { isRawItems, isRawJson, type RawJson, toRawValue } from "../contracts/index.ts";
import type { ExecuteOptions } from "../engine/ports/index.ts";

/**
 * The wire format between StoreClient and responder: JSON bodies, metadata in NATS headers.
 * The command itself (with its correlationId) is the JSON body; the time budget is a header.
 */

/**
 * Milliseconds the caller still waits for this request. Relative, not an absolute deadline, so a
 * clock skew between the gateway's and the model-store's machines does not shorten or stretch it.
 */
export const BUDGET_HEADER = "Twinport-Budget-Ms";

/** Set on a command whose caller wants a successful reply's value as text (ExecuteOptions.rawValue). */
export const RAW_VALUE_HEADER = "Twinport-Raw-Value";

/**
 * First byte of a reply framed as: the mark, the reply without its value as JSON, a newline, then
 * the value's JSON text as it is. JSON text never starts with this byte, and the envelope's JSON
 * holds no raw newline, so both forms are told apart and split without scanning the value.
 */
const RAW_VALUE_MARK = 0x01;
/** The same for a Paged value: the envelope carries the cursor, the text is the items' JSON array. */
const RAW_ITEMS_MARK = 0x02;
const NEWLINE = 0x0a;

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

/** How a caller wants a successful reply's value: ExecuteOptions.rawValue, carried in RAW_VALUE_HEADER. */
export type RawValueMode = ExecuteOptions["rawValue"];

export function rawValueModeOf(header: string | undefined): RawValueMode {
  return header === "1" ? true : header === "items" ? "items" : undefined;
}

export function rawValueHeaderOf(rawValue: RawValueMode): string | undefined {
  return rawValue === true ? "1" : rawValue === "items" ? "items" : undefined;
}

/**
 * A reply for the wire; with a raw mode, a successful reply's value travels as text (see
 * RAW_VALUE_MARK), in the form `toRawValue` gives it (the direct store client's form too).
 */
export function encodeReply(reply: { ok: boolean; value?: unknown }, mode: RawValueMode): Uint8Array {
  if (!mode || !reply.ok || reply.value === undefined) return encodeJson(reply);
  const { value, ...envelope } = reply;
  const raw = toRawValue(value, mode);
  let mark: number;
  let head: string;
  let text: string;
  if (isRawJson(raw)) {
    [mark, head, text] = [RAW_VALUE_MARK, JSON.stringify(envelope), raw.rawJson];
  } else if (isRawItems(raw)) {
    [mark, head, text] = [
      RAW_ITEMS_MARK,
      JSON.stringify(raw.cursor === undefined ? envelope : { ...envelope, cursor: raw.cursor }),
      raw.items.rawJson,
    ];
  } else {
    throw new TypeError("value has no JSON form");
  }
  const headBytes = Buffer.byteLength(head);
  const data = Buffer.allocUnsafe(1 + headBytes + 1 + Buffer.byteLength(text));
  data[0] = mark;
  data.write(head, 1, "utf8");
  data[1 + headBytes] = NEWLINE;
  data.write(text, 2 + headBytes, "utf8");
  return data;
}

/** The reply encodeReply made: a raw value comes back as a RawJson, raw items as `{ items: RawJson, cursor }`. */
export function decodeReply(data: Uint8Array): unknown {
  const mark = data[0];
  if (mark !== RAW_VALUE_MARK && mark !== RAW_ITEMS_MARK) return decodeJson(data);
  const newline = data.indexOf(NEWLINE);
  if (newline < 0) throw new Error("a raw-value reply without its separator");
  const envelope = JSON.parse(decoder.decode(data.subarray(1, newline))) as Record<string, unknown>;
  const text: RawJson = { rawJson: decoder.decode(data.subarray(newline + 1)) };
  if (mark === RAW_VALUE_MARK) return { ...envelope, value: text };
  const { cursor, ...rest } = envelope;
  return { ...rest, value: cursor === undefined ? { items: text } : { items: text, cursor } };
}
