import { headers, type Msg, type MsgHdrs, type NatsConnection } from "@nats-io/nats-core";

/**
 * Chunked transfer of large requests and replies. NATS refuses messages above max_payload (1 MB by
 * default), and whole submodels, snapshots or files can be far bigger.
 *
 * Reply (responder → client): N messages to the reply inbox, each with `Twinport-Chunk: i/N`.
 * Messages from one connection to one subscription keep their order, so the client appends them.
 *
 * Request (client → responder), a handshake because the queue group picks the replica:
 *   1. the client sends an empty "begin" message on the command subject with
 *      `Twinport-Request-Chunks: N`; the queue group hands it to one replica;
 *   2. that replica subscribes to a fresh inbox and answers with `Twinport-Upload: <inbox>`
 *      (its SUB precedes that answer on its connection, so the server knows the inbox by then);
 *   3. the client publishes the N chunks to that inbox: they all reach the same replica, which
 *      reassembles, executes and answers on the original reply subject (chunked again if needed).
 * Every request gets its answer, however the transfer ends: a replica that does not get the whole
 * body (chunks lost, broken, or its own close) answers `unavailable` (nothing was run), and an inbox
 * gone before the last chunk is a "no responders" on the last chunk's reply subject
 * (command-responder.ts, nats-store-client.ts).
 */

export const CHUNK_HEADER = "Twinport-Chunk";
export const REQUEST_CHUNKS_HEADER = "Twinport-Request-Chunks";
export const UPLOAD_HEADER = "Twinport-Upload";

/** Largest body sent as one message: half the 1 MB default leaves room for headers and subjects. */
export const MAX_CHUNK_BYTES = 512 * 1024;
/** 4096 × 512 KiB = 2 GiB: a count above this is a corrupt header, not a real transfer. */
const MAX_CHUNKS = 4096;

/** Chunk size for this connection: never more than half of what its server accepts. */
export function chunkBytesFor(connection: NatsConnection): number {
  const maxPayload = connection.info?.max_payload ?? 1024 * 1024;
  return Math.max(1024, Math.min(MAX_CHUNK_BYTES, Math.floor(maxPayload / 2)));
}

export function splitIntoChunks(data: Uint8Array, chunkBytes: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < data.length; start += chunkBytes) chunks.push(data.subarray(start, start + chunkBytes));
  return chunks.length > 0 ? chunks : [data];
}

/**
 * Publishes `data` to `subject` as numbered chunks (see the header comment). `lastReply`: the last
 * chunk names it as its reply subject, so that when nobody listens on `subject` any more (the
 * replica that named its inbox went away, or gave up on the body) the server tells that subject "no
 * responders" at once. Plain publishes to an inbox nobody holds vanish without a word, and the
 * sender would wait for an answer to the end of its budget (the receiver ignores the reply subject).
 */
export function publishChunks(
  connection: NatsConnection,
  subject: string,
  data: Uint8Array,
  chunkBytes: number,
  lastReply?: string,
): void {
  const chunks = splitIntoChunks(data, chunkBytes);
  chunks.forEach((chunk, index) => {
    const chunkHeaders = headers();
    chunkHeaders.set(CHUNK_HEADER, `${index}/${chunks.length}`);
    const reply = index === chunks.length - 1 ? lastReply : undefined;
    connection.publish(
      subject,
      chunk,
      reply === undefined ? { headers: chunkHeaders } : { headers: chunkHeaders, reply },
    );
  });
}

export function chunkCount(byteLength: number, chunkBytes: number): number {
  return Math.max(1, Math.ceil(byteLength / chunkBytes));
}

export function isChunk(msg: Msg): boolean {
  return hasHeader(msg.headers, CHUNK_HEADER);
}

export function uploadSubjectOf(msg: Msg): string | undefined {
  return hasHeader(msg.headers, UPLOAD_HEADER) ? msg.headers!.get(UPLOAD_HEADER) : undefined;
}

export function isChunkedRequest(msg: Msg): boolean {
  return hasHeader(msg.headers, REQUEST_CHUNKS_HEADER);
}

function hasHeader(msgHeaders: MsgHdrs | undefined, name: string): boolean {
  return msgHeaders !== undefined && msgHeaders.has(name);
}

/** Reassembles one transfer; chunks must arrive in order, each exactly once. */
export class ChunkAssembler {
  private readonly parts: Uint8Array[] = [];
  private expected: number | undefined;
  private bytes = 0;

  /** Adds one chunk message; returns the whole body once the last chunk arrived. */
  addMessage(msg: Msg): Uint8Array | undefined {
    return this.add(msg.headers?.get(CHUNK_HEADER) ?? "", msg.data);
  }

  /** `position` is the header value `i/N`. Throws on a malformed, duplicate or missing chunk. */
  add(position: string, data: Uint8Array): Uint8Array | undefined {
    const match = /^(\d+)\/(\d+)$/.exec(position);
    if (!match) throw new Error(`malformed chunk header "${position}"`);
    const index = Number(match[1]);
    const count = Number(match[2]);
    if (count < 1 || count > MAX_CHUNKS) throw new Error(`implausible chunk count ${count}`);
    if (this.expected === undefined) this.expected = count;
    if (count !== this.expected) throw new Error(`chunk count changed from ${this.expected} to ${count}`);
    if (index !== this.parts.length)
      throw new Error(`chunk ${index} of ${count} arrived when ${this.parts.length} was expected`);
    // Copy: the message's buffer may be reused by the client once the callback returns.
    this.parts.push(data.slice());
    this.bytes += data.length;
    if (this.parts.length < count) return undefined;
    const whole = new Uint8Array(this.bytes);
    let offset = 0;
    for (const part of this.parts) {
      whole.set(part, offset);
      offset += part.length;
    }
    this.parts.length = 0;
    return whole;
  }
}
