import {
  createInbox,
  Empty,
  headers,
  type Msg,
  type NatsConnection,
  nuid,
  type Subscription,
} from "@nats-io/nats-core";
import {
  ANONYMOUS,
  BATCHED_COMMANDS,
  batchSubject,
  COMMAND_SUBJECT_PREFIX,
  type Command,
  type CommandType,
  commandSubject,
  type FileContent,
  type FileStream,
  MODEL_STORE_QUEUE,
  REPLICA_COMMAND_PREFIX,
  type Reply,
  STREAMED_COMMANDS,
  withArrivedPrincipal,
} from "../contracts/index.ts";
import type { CommandHandler } from "../engine/ports/index.ts";
import { type BatchReply, decodeCommandBatch, encodeReplyBatch } from "./batch-wire.ts";
import { ChunkAssembler, chunkBytesFor, isChunkedRequest, publishChunks, UPLOAD_HEADER } from "./chunking.ts";
import { watchLoop } from "./loop-watch.ts";
import { publishBatchFor } from "./publish-batch.ts";
import { announceReplica } from "./replica-routing.ts";
import { replyForThrown } from "./reply-for-thrown.ts";
import { type ServedStream, STREAM_HEADER, STREAM_PULL_HEADER, serveReplyStream } from "./reply-stream.ts";
import {
  budgetOf,
  decodeJson,
  encodeJson,
  encodeReply,
  RAW_VALUE_HEADER,
  type RawValueMode,
  rawValueModeOf,
} from "./wire.ts";

export interface CommandResponderOptions {
  /** Owned by the caller: close() of the responder leaves it open. */
  connection: NatsConnection;
  handler: CommandHandler;
  /** Failures nobody can be answered about (a closed connection, a reply that cannot be sent). */
  onError?: (error: unknown) => void;
  /**
   * True when a security section is configured: a command without a principal runs as ANONYMOUS,
   * never as the in-process system (contracts/principal.ts). Default false: as before issue 13,
   * except that a command carrying a caller's principal (not SYSTEM) is refused as `unavailable`:
   * there are no rules here to check it against.
   */
  anonymousWithoutPrincipal?: boolean;
  /** This replica's name in command routing (docs/adr/0027); default a fresh random one. */
  replicaId?: string;
  /** How often the replica announces itself to the StoreClients. Default 1000 ms. */
  presenceIntervalMs?: number;
  /**
   * Take command batches (docs/adr/0042) and announce so. Default true; false behaves as a
   * model-store from before batches (tests of mixed versions).
   */
  acceptBatches?: boolean;
  /**
   * Told of every command answered "unavailable" (nothing was done: the deadline passed during a
   * stall, Redis is away, no security section), with the reply's message, so the process can log
   * why its callers got 503s.
   */
  onRefused?: (commandType: string, message: string) => void;
  /** How long the body of a chunked request may stop arriving before its caller is answered; default UPLOAD_IDLE_MS. */
  uploadIdleMs?: number;
}

export interface CommandResponder {
  /** The name StoreClients route this replica's submodels to. */
  readonly replicaId: string;
  /** Stops taking commands, lets the ones in progress answer, then resolves. */
  close(): Promise<void>;
}

/** In the refusal of a store without rules to run a caller's command (see execute below). */
const NO_SECURITY_SECTION = "this model-store has no security section";

/** True for the reply of a model-store that has no rules to check a caller's principal against. */
export function isNoSecuritySectionReply(reply: Reply<unknown>): boolean {
  return !reply.ok && reply.error.code === "unavailable" && reply.error.message.includes(NO_SECURITY_SECTION);
}

/**
 * A gateway without a security section probing whether this store enforces rules (Command's
 * accessStanceProbe) expects a store without any to refuse its principal: "open" is the answer it
 * asked for, and logging it warned of a misconfiguration on every clean start of an open
 * deployment. Its other refusals (a stall, Redis away) are logged as any command's.
 */
function askedForRefusal(command: Command, reply: Reply<unknown>): boolean {
  return command.accessStanceProbe === true && isNoSecuritySectionReply(reply);
}

/** How long a replica waits for the chunks of a request that came without a budget. */
const DEFAULT_UPLOAD_WAIT_MS = 30_000;
/** Longest gap between a request's handshake answer and its first chunk, or between two chunks. */
export const UPLOAD_IDLE_MS = 10_000;

/**
 * The model-store side of the StoreClient: every command subject, in the model-store queue group so
 * each command reaches exactly one replica. Commands run concurrently (the engine serializes what
 * must be serialized, through its commits); whatever happens, the responder answers and keeps going.
 */
export async function serveCommandsOverNats(options: CommandResponderOptions): Promise<CommandResponder> {
  const { connection, handler } = options;
  const reportError = options.onError ?? ((error: unknown) => console.error("twinport: command responder:", error));
  const inFlight = new Set<Promise<void>>();
  const uploads = new Set<() => void>();
  const streams = new Set<ServedStream>();
  const batch = publishBatchFor(connection);
  const replicaId = options.replicaId ?? nuid.next();
  const directPrefix = `${REPLICA_COMMAND_PREFIX}.${replicaId}.`;

  const acceptBatches = options.acceptBatches !== false;
  const uploadIdleMs = options.uploadIdleMs ?? UPLOAD_IDLE_MS;
  // A budget counts from when the command may have arrived, not from when it is read: after this
  // process stood still (SIGSTOP, a VM stall), the commands that queued meanwhile have waited, and
  // their gateways may have answered 504 and routed the submodel to another replica (ADR 0027);
  // run now, they would land on top of writes acknowledged since (docs/adr/0017).
  const loop = watchLoop();

  const track = (work: Promise<void>) => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  };
  const take = (error: Error | null, msg: Msg) => {
    if (error) return reportError(error);
    track(serve(msg).catch(reportError));
  };
  const takeBatch = (error: Error | null, msg: Msg) => {
    if (error) return reportError(error);
    track(serveBatch(msg).catch(reportError));
  };
  // Any replica may take a command of the queue group (the fallback, and commands without a
  // submodel); the commands StoreClients route to this replica come on its own subject (ADR 0027).
  const subscriptions = [
    connection.subscribe(`${COMMAND_SUBJECT_PREFIX}.>`, { queue: MODEL_STORE_QUEUE, callback: take }),
    connection.subscribe(`${directPrefix}>`, { callback: take }),
    // Command batches, only for this replica (a gateway sends them only here, docs/adr/0042).
    ...(acceptBatches ? [connection.subscribe(batchSubject(replicaId), { callback: takeBatch })] : []),
  ];
  // Resolve once the server routes commands here: a client may send the next moment.
  await connection.flush();
  const presence = announceReplica(
    connection,
    replicaId,
    options.presenceIntervalMs ?? 1_000,
    reportError,
    acceptBatches,
  );

  async function serve(msg: Msg): Promise<void> {
    const replyTo = msg.reply;
    if (!replyTo) return; // not a request: nobody waits for an answer
    const budget = budgetOf(msg);
    const deadline = budget === undefined ? undefined : loop.lastTurn() + budget;
    let body = msg.data;
    if (isChunkedRequest(msg)) {
      try {
        body = await receiveUpload(replyTo, deadline);
      } catch (error) {
        // Its caller waits for an answer whatever became of the body; silence would hold it to the
        // end of its budget (120 s for an attachment) and then read as "outcome unknown".
        const type = msg.subject.slice(msg.subject.lastIndexOf(".") + 1);
        const message = `${type}: its body did not arrive whole (${(error as Error).message}); it was not executed, repeating it is safe`;
        options.onRefused?.(type, message);
        return sendReply(replyTo, { ok: false, error: { code: "unavailable", message } }, undefined);
      }
    }
    if (msg.headers?.has(STREAM_HEADER))
      return answerStreamed(replyTo, await execute(msg.subject, body, deadline, runStreamed));
    const reply = await execute(msg.subject, body, deadline);
    sendReply(replyTo, reply, rawValueModeOf(msg.headers?.get(RAW_VALUE_HEADER)));
  }

  /**
   * A command batch: every command started at once and in order (so the engine queues same-target
   * writes in the order they were sent and commits them as one group). Each is answered as soon as
   * it is done, the answers of one event-loop turn in one message, which leaves after the events
   * of the same turn (the publish batch keeps the order). A batch that cannot be read at all gets
   * one reply, which the gateway applies to every command.
   */
  async function serveBatch(msg: Msg): Promise<void> {
    const replyTo = msg.reply;
    if (!replyTo) return;
    let items: ReturnType<typeof decodeCommandBatch>;
    try {
      items = decodeCommandBatch(msg.data);
    } catch (error) {
      const message = `undecodable command batch: ${(error as Error).message}`;
      return sendReply(replyTo, { ok: false, error: { code: "bad-request", message } }, undefined);
    }
    const arrived = loop.lastTurn();
    let done: BatchReply[] = [];
    const answerDone = () => {
      const answers = done;
      done = [];
      publishReply(replyTo, encodeReplyBatch(answers));
    };
    await Promise.all(
      items.map(async (item, index) => {
        const deadline = arrived + item.budgetMs;
        const reply = await executeDecoded(
          () => checkedCommand(item.command, undefined),
          deadline,
          (command) => handler.execute(command, { deadline }),
        );
        if (done.length === 0) batch.beforeFlush(answerDone);
        done.push({ index, data: encodedReply(reply, item.rawValue) });
      }),
    );
  }

  /** A streamed command (reply-stream.ts); a handler that cannot stream answers whole, as one chunk. */
  async function runStreamed(command: Command): Promise<Reply<unknown>> {
    if (!STREAMED_COMMANDS.has(command.type))
      return { ok: false, error: { code: "bad-request", message: `${command.type} cannot be streamed` } };
    if (handler.stream) return handler.stream(command);
    const reply = await handler.execute(command);
    if (!reply.ok) return reply;
    const { contentBase64, ...content } = reply.value as FileContent;
    return { ok: true, value: { ...content, chunks: [Buffer.from(contentBase64, "base64")] } };
  }

  function answerStreamed(replyTo: string, reply: Reply<unknown>): void {
    if (!reply.ok) return sendReply(replyTo, reply, undefined);
    const { chunks, ...content } = reply.value as FileStream;
    const served = serveReplyStream(connection, toAsync(chunks), chunkBytesFor(connection), (done) =>
      streams.delete(done),
    );
    streams.add(served);
    const answer = headers();
    answer.set(STREAM_PULL_HEADER, served.inbox);
    connection.publish(replyTo, encodeJson({ ok: true, value: content }), { headers: answer });
  }

  function execute(
    subject: string,
    body: Uint8Array,
    deadline: number | undefined,
    run: (command: Command) => Promise<Reply<unknown>> = (command) =>
      handler.execute(command, deadline === undefined ? undefined : { deadline }),
  ): Promise<Reply<unknown>> {
    // A routed command's subject names the same type as the queue group's would.
    const decode = () =>
      decodeCommand(
        subject.startsWith(directPrefix) ? `${COMMAND_SUBJECT_PREFIX}.${subject.slice(directPrefix.length)}` : subject,
        body,
      );
    return executeDecoded(decode, deadline, run);
  }

  async function executeDecoded(
    decode: () => Command,
    deadline: number | undefined,
    run: (command: Command) => Promise<Reply<unknown>>,
  ): Promise<Reply<unknown>> {
    let command: Command;
    try {
      command = withArrivedPrincipal(decode(), options.anonymousWithoutPrincipal ? ANONYMOUS : undefined);
    } catch (error) {
      return { ok: false, error: { code: "bad-request", message: `undecodable command: ${(error as Error).message}` } };
    }
    const reply = await answer(command, deadline, run);
    if (!reply.ok && reply.error.code === "unavailable" && !askedForRefusal(command, reply))
      options.onRefused?.(command.type, reply.error.message);
    return reply;
  }

  async function answer(
    command: Command,
    deadline: number | undefined,
    run: (command: Command) => Promise<Reply<unknown>>,
  ): Promise<Reply<unknown>> {
    // A caller's principal comes only from a gateway with a security section. Without one here the
    // engine has no rules and would run it unchecked: that gateway's callers, anonymous ones
    // included, could do everything. Fail closed until every role has the section (docs/security.md).
    if (!options.anonymousWithoutPrincipal && command.principal !== undefined) {
      return {
        ok: false,
        error: {
          code: "unavailable",
          message: `${command.type}: ${NO_SECURITY_SECTION}, but the command carries a caller's principal (its gateway has one); give every role the same security section`,
        },
      };
    }
    // The caller has given up: running a write now would only surprise it later. Not run, so
    // "unavailable" (503, safe to repeat), not "timeout" (504, outcome unknown): a caller still
    // waiting, one whose command was read just after this process stood still (loop-watch.ts
    // dates those to the stall), hears the truth.
    if (deadline !== undefined && Date.now() >= deadline) {
      return {
        ok: false,
        error: {
          code: "unavailable",
          message: `${command.type}: not executed, its deadline passed before this model-store could run it (it may have stood still meanwhile); nothing was done, repeating it is safe`,
        },
      };
    }
    try {
      return await run(command);
    } catch (error) {
      return replyForThrown(error);
    }
  }

  function sendReply(replyTo: string, reply: Reply<unknown>, rawValue: RawValueMode): void {
    publishReply(replyTo, encodedReply(reply, rawValue));
  }

  function encodedReply(reply: Reply<unknown>, rawValue: RawValueMode): Uint8Array {
    try {
      return encodeReply(reply, rawValue);
    } catch (error) {
      return encodeJson(replyForThrown(new Error(`the reply cannot be encoded as JSON: ${(error as Error).message}`)));
    }
  }

  function publishReply(replyTo: string, data: Uint8Array): void {
    const chunkBytes = chunkBytesFor(connection);
    if (data.length <= chunkBytes) batch.publish(replyTo, data, undefined, reportError);
    else publishChunks(connection, replyTo, data, chunkBytes);
  }

  /**
   * Step 2 of the chunked request (see chunking.ts): take the body on an inbox of this replica.
   * Rejects, and the caller is answered, when the body cannot come whole: its deadline passed, a
   * chunk is broken, the responder closes, or no chunk came for `uploadIdleMs` (the client sends
   * them all at once, so a gap that long means they were lost on the way, e.g. in a reconnect).
   */
  function receiveUpload(replyTo: string, deadline: number | undefined): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      const inbox = createInbox();
      const assembler = new ChunkAssembler();
      let upload: Subscription | undefined;
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      let received = 0;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        uploads.delete(abandon);
        upload?.unsubscribe();
        outcome();
      };
      const abandon = () => finish(() => reject(new Error("the model-store closed during the transfer")));
      const end = deadline ?? Date.now() + DEFAULT_UPLOAD_WAIT_MS;
      const arm = () => {
        clearTimeout(timer);
        const seen = received;
        const left = end - Date.now();
        const idle = left > uploadIdleMs;
        timer = setTimeout(
          () => {
            if (!idle) return finish(() => reject(new Error("its chunks did not arrive before its deadline")));
            // Chunks that waited in the socket while this process stood still are read in the poll
            // phase, after timers: look once more behind them before calling the transfer lost.
            setImmediate(() => {
              if (settled) return;
              if (received !== seen) return arm();
              finish(() => reject(new Error(`no chunk came for ${uploadIdleMs} ms`)));
            });
          },
          Math.max(0, idle ? uploadIdleMs : left),
        );
      };
      arm();
      uploads.add(abandon);
      upload = connection.subscribe(inbox, {
        callback: (error, msg) => {
          try {
            if (error) throw error;
            received++;
            const body = assembler.addMessage(msg);
            if (body) finish(() => resolve(body));
            else arm();
          } catch (failure) {
            finish(() => reject(failure));
          }
        },
      });
      const answer = headers();
      answer.set(UPLOAD_HEADER, inbox);
      connection.publish(replyTo, Empty, { headers: answer });
    });
  }

  return {
    replicaId,
    async close() {
      // Goodbye first: clients route elsewhere at once; what still comes here is drained.
      presence.stop();
      if (!connection.isClosed()) await Promise.all(subscriptions.map((s) => s.drain())).catch(reportError);
      for (const abandon of [...uploads]) abandon();
      for (const stream of [...streams]) stream.abandon();
      await Promise.allSettled([...inFlight]);
      await batch.flushed();
      loop.stop();
    },
  };
}

function decodeCommand(subject: string, body: Uint8Array): Command {
  return checkedCommand(decodeJson(body), subject);
}

/**
 * What a command must look like to be run. `subject`: the one it came on, which must name its type;
 * undefined for a command of a batch, which must be of a type that may travel in one.
 */
function checkedCommand(body: unknown, subject: string | undefined): Command {
  const command = body as Command;
  if (typeof command !== "object" || command === null || typeof command.type !== "string")
    throw new Error("no command type");
  // The subject routes, the body describes: they must agree, or a gateway is broken.
  if (subject !== undefined && commandSubject(command.type) !== subject)
    throw new Error(`a ${command.type} command on subject ${subject}`);
  if (subject === undefined && !BATCHED_COMMANDS.has(command.type as CommandType))
    throw new Error(`a ${command.type} command cannot travel in a command batch`);
  if (typeof command.params !== "object" || command.params === null) throw new Error("no params");
  const { principal } = command;
  if (
    principal !== undefined &&
    (typeof principal !== "object" ||
      principal === null ||
      typeof principal.kind !== "string" ||
      !Array.isArray(principal.roles))
  ) {
    throw new Error("a malformed principal");
  }
  return command;
}

async function* toAsync(chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  yield* chunks;
}
