import { createInbox, Empty, headers, type Msg, type NatsConnection, type Subscription } from "@nats-io/nats-core";

/**
 * A reply streamed from the model-store to a gateway, for bodies of any size (a whole-model
 * serialization: docs/adr/0034). The chunked reply (chunking.ts) holds the whole body at both
 * ends; this one holds one chunk at a time, because the reader pulls:
 *
 *   1. the command goes out with `Twinport-Stream: 1`; the replica answers once with the Reply (its
 *      failure, or its value without the body) and, when there is a body, `Twinport-Stream-Pull:
 *      <inbox>`, an inbox of that replica;
 *   2. the client sends a request to that inbox for each chunk; the replica answers with the next
 *      bytes (at most chunkBytes), the last answer empty with `Twinport-Stream-End: 1`, or
 *      `Twinport-Stream-Error: <message>` when writing failed;
 *      A chunk not ready within STREAM_WAIT_MS is answered with `Twinport-Stream-Wait: 1` (pull
 *      again), so each pull stays as short as a command;
 *   3. a client that stops early sends `Twinport-Stream-Cancel: 1`; a replica that hears no pull for
 *      STREAM_IDLE_MS gives the stream up (the client went away).
 *
 * The replica produces the next chunk only when it is asked for: the HTTP response's backpressure
 * reaches the store's reads, and no process holds more than a few chunks.
 */
export const STREAM_HEADER = "Twinport-Stream";
export const STREAM_PULL_HEADER = "Twinport-Stream-Pull";
const END_HEADER = "Twinport-Stream-End";
const ERROR_HEADER = "Twinport-Stream-Error";
const CANCEL_HEADER = "Twinport-Stream-Cancel";
const WAIT_HEADER = "Twinport-Stream-Wait";

/** How long a replica keeps a stream nobody pulls from. */
export const STREAM_IDLE_MS = 30_000;
/** How long a pull waits for its chunk before it is told to pull again. */
export const STREAM_WAIT_MS = 1_000;

export interface ServedStream {
  inbox: string;
  /** Gives the stream up now (the responder closes). */
  abandon(): void;
}

/** Replica side: serves `chunks` to whoever pulls on a fresh inbox, then unsubscribes. */
export function serveReplyStream(
  connection: NatsConnection,
  chunks: AsyncIterable<Uint8Array>,
  chunkBytes: number,
  onDone: (stream: ServedStream) => void,
  idleMs = STREAM_IDLE_MS,
  waitMs = STREAM_WAIT_MS,
): ServedStream {
  const inbox = createInbox();
  const iterator = chunks[Symbol.asyncIterator]();
  let pending: Uint8Array = new Uint8Array(0);
  let finished = false;
  let busy = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let subscription: Subscription | undefined;

  const finish = () => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    subscription?.unsubscribe();
    // The engine's generator releases what it holds (its reads stop).
    void iterator.return?.()?.catch(() => undefined);
    onDone(stream);
  };
  const armIdle = () => {
    clearTimeout(timer);
    timer = setTimeout(finish, idleMs);
  };
  /** The next at most chunkBytes bytes, or undefined at the end. */
  const next = async (): Promise<Uint8Array | undefined> => {
    while (pending.length === 0) {
      const step = await iterator.next();
      if (step.done) return undefined;
      pending = step.value;
    }
    const piece = pending.subarray(0, chunkBytes);
    pending = pending.subarray(piece.length);
    return piece;
  };
  /** The chunk being produced; kept across pulls when a pull was answered with a wait. */
  let producing: Promise<Uint8Array | undefined> | undefined;
  const answer = async (msg: Msg) => {
    if (finished) return;
    // A cancel is published, not requested: it has no reply subject.
    if (msg.headers?.has(CANCEL_HEADER)) return finish();
    if (!msg.reply) return;
    armIdle();
    try {
      producing ??= next();
      let waited: NodeJS.Timeout | undefined;
      const late = new Promise<"wait">((resolve) => {
        waited = setTimeout(() => resolve("wait"), waitMs);
      });
      const outcome = await Promise.race([producing, late]).finally(() => clearTimeout(waited));
      if (outcome === "wait") {
        // Still producing (a deflated package can take long per compressed chunk): tell the
        // client to pull again, so no pull waits longer than a command would.
        const wait = headers();
        wait.set(WAIT_HEADER, "1");
        connection.publish(msg.reply, Empty, { headers: wait });
        return;
      }
      producing = undefined;
      const piece = outcome;
      if (piece === undefined) {
        const end = headers();
        end.set(END_HEADER, "1");
        connection.publish(msg.reply, Empty, { headers: end });
        return finish();
      }
      connection.publish(msg.reply, piece);
    } catch (error) {
      const failed = headers();
      failed.set(ERROR_HEADER, headerText((error as Error).message ?? String(error)));
      connection.publish(msg.reply, Empty, { headers: failed });
      finish();
    }
  };
  subscription = connection.subscribe(inbox, {
    // One pull at a time, in order: a pull that comes early waits for the one before.
    callback: (error, msg) => {
      if (error) return finish();
      busy = busy.then(() => answer(msg));
    },
  });
  armIdle();
  const stream: ServedStream = { inbox, abandon: finish };
  return stream;
}

/**
 * Client side: the chunks of the stream served on `inbox`, each pulled when the consumer asks for
 * it. `timeoutMs` bounds each pull (the wait for one chunk), not the whole transfer.
 */
export async function* pullReplyStream(
  connection: NatsConnection,
  inbox: string,
  timeoutMs: number,
): AsyncGenerator<Uint8Array> {
  let ended = false;
  try {
    for (;;) {
      const msg = await connection.request(inbox, Empty, { timeout: timeoutMs });
      if (msg.headers?.has(ERROR_HEADER)) {
        ended = true;
        throw new Error(`the model-store failed while writing: ${msg.headers.get(ERROR_HEADER)}`);
      }
      if (msg.headers?.has(WAIT_HEADER)) continue;
      if (msg.headers?.has(END_HEADER)) {
        ended = true;
        return;
      }
      // Copy: the message's buffer may be reused by the client once the next message comes.
      yield msg.data.slice();
    }
  } finally {
    if (!ended && !connection.isClosed()) {
      const cancel = headers();
      cancel.set(CANCEL_HEADER, "1");
      connection.publish(inbox, Empty, { headers: cancel });
    }
  }
}

function headerText(text: string): string {
  return text.replace(/[\r\n]+/gu, " ").slice(0, 500);
}
