import { decodeJson, type RawValueMode, rawValueHeaderOf, rawValueModeOf } from "./wire.ts";

/**
 * The wire format of a command batch (docs/adr/0042): several commands for one model-store replica
 * in one NATS message, answered by one message carrying every reply, in order.
 *
 * Request: a JSON array, one object per command: `{"b":<budget ms>,"r":"1"|"items","c":<command>}`
 * (`r` only with a raw-value mode). The budget and raw-value mode are what a single command carries
 * in its headers (wire.ts). The gateway has each command's JSON already (it encodes every command
 * once, to check it can); the batch is built around those bytes, and the store parses it in one go.
 *
 * Replies: the store answers each command as soon as it is done, the answers of one of its event-loop
 * turns together in one message (so a batch whose writes commit in two rounds is answered in two
 * messages, and the first ones need not wait for the last). A reply message: the byte
 * BATCH_REPLY_MARK, then per answered command its index in the batch and the length of its reply
 * (4-byte big-endian each) and the reply as a single command's reply would be (`encodeReply`,
 * raw-value framing included). Any other first byte means the store answered the batch as a whole
 * with one reply (e.g. an undecodable batch), which then is the answer to every command in it.
 */
export const BATCH_REPLY_MARK = 0x03;

/** One command of a batch, as the gateway hands it over: the command's JSON bytes. */
export interface BatchItemOut {
  budgetMs: number;
  rawValue: RawValueMode;
  command: Uint8Array;
}

/** One command of a batch as the store reads it; `command` is still to be checked (it is untrusted). */
export interface BatchItemIn {
  budgetMs: number;
  rawValue: RawValueMode;
  command: unknown;
}

const encoder = new TextEncoder();
const OPEN = encoder.encode("[");
const CLOSE_ITEM = encoder.encode("}");
const COMMA = encoder.encode(",");
const CLOSE = encoder.encode("]");

export function encodeCommandBatch(items: readonly BatchItemOut[]): Uint8Array {
  const parts: Uint8Array[] = [OPEN];
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (!Number.isSafeInteger(item.budgetMs) || item.budgetMs <= 0)
      throw new RangeError(`a batch item needs a positive budget (got ${item.budgetMs})`);
    const raw = rawValueHeaderOf(item.rawValue);
    if (i > 0) parts.push(COMMA);
    parts.push(encoder.encode(`{"b":${item.budgetMs},${raw === undefined ? "" : `"r":"${raw}",`}"c":`));
    parts.push(item.command, CLOSE_ITEM);
  }
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

/** Throws an Error saying what is wrong with a body that is not a command batch. */
export function decodeCommandBatch(data: Uint8Array): BatchItemIn[] {
  let body: unknown;
  try {
    body = decodeJson(data);
  } catch (error) {
    throw new Error(`a command batch that is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(body)) throw new Error("a command batch must be a JSON array");
  if (body.length === 0) throw new Error("an empty command batch");
  return body.map((item: unknown, index) => {
    if (typeof item !== "object" || item === null || Array.isArray(item))
      throw new Error(`command batch item ${index} is not an object`);
    const { b, r, c } = item as { b?: unknown; r?: unknown; c?: unknown };
    if (typeof b !== "number" || !Number.isFinite(b) || b <= 0)
      throw new Error(`command batch item ${index} has no positive budget "b"`);
    if (r !== undefined && r !== "1" && r !== "items")
      throw new Error(`command batch item ${index} has an unknown raw-value mode "r"`);
    if (c === undefined) throw new Error(`command batch item ${index} has no command "c"`);
    return { budgetMs: b, rawValue: rawValueModeOf(r as string | undefined), command: c };
  });
}

/** A command's reply in a reply message: its index in the batch, its reply as encodeReply made it. */
export interface BatchReply {
  index: number;
  data: Uint8Array;
}

export function encodeReplyBatch(replies: readonly BatchReply[]): Uint8Array {
  let size = 1;
  for (const reply of replies) size += 8 + reply.data.length;
  const data = Buffer.allocUnsafe(size);
  data[0] = BATCH_REPLY_MARK;
  let at = 1;
  for (const reply of replies) {
    data.writeUInt32BE(reply.index, at);
    data.writeUInt32BE(reply.data.length, at + 4);
    data.set(reply.data, at + 8);
    at += 8 + reply.data.length;
  }
  return data;
}

/**
 * The replies in one reply message of a batch of `count` commands, each to be read with
 * decodeReply; undefined when the store answered the whole batch with one reply (read `data` itself
 * with decodeReply then). Throws when the framing is broken or an index is not one of the batch.
 */
export function decodeReplyBatch(data: Uint8Array, count: number): BatchReply[] | undefined {
  if (data[0] !== BATCH_REPLY_MARK) return undefined;
  const replies: BatchReply[] = [];
  let at = 1;
  while (at < data.length) {
    if (at + 8 > data.length) throw new Error("a batch reply cut inside an index or length");
    const index = uint32At(data, at);
    const length = uint32At(data, at + 4);
    at += 8;
    if (index >= count) throw new Error(`a batch reply for command ${index} of a batch of ${count}`);
    if (at + length > data.length) throw new Error("a batch reply cut inside a reply");
    replies.push({ index, data: data.subarray(at, at + length) });
    at += length;
  }
  if (replies.length === 0) throw new Error("a batch reply without replies");
  return replies;
}

function uint32At(data: Uint8Array, at: number): number {
  return ((data[at]! << 24) | (data[at + 1]! << 16) | (data[at + 2]! << 8) | data[at + 3]!) >>> 0;
}
