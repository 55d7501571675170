import { createInbox, Empty, headers, type Msg, type MsgHdrs, type NatsConnection } from "@nats-io/nats-core";
import {
  BATCHED_COMMANDS,
  type Command,
  type CommandResult,
  type CommandType,
  commandSubject,
  type ErrorCode,
  type FileStream,
  isErrorCode,
  type Reply,
  type ReplyFailure,
  replicaCommandSubject,
  WRITE_COMMANDS,
} from "../contracts/index.ts";
import type { ExecuteOptions, StoreClient } from "../engine/ports/index.ts";
import {
  ChunkAssembler,
  chunkBytesFor,
  chunkCount,
  isChunk,
  publishChunks,
  REQUEST_CHUNKS_HEADER,
  uploadSubjectOf,
} from "./chunking.ts";
import { createCommandLanes, type LaneItem } from "./command-lanes.ts";
import { watchConnection } from "./connection-watch.ts";
import { OrderedDeadlines } from "./ordered-deadlines.ts";
import { publishBatchFor } from "./publish-batch.ts";
import { partitionKeyOf, watchReplicas } from "./replica-routing.ts";
import { pullReplyStream, STREAM_HEADER, STREAM_PULL_HEADER } from "./reply-stream.ts";
import { BUDGET_HEADER, decodeReply, encodeJson, isNoResponders, RAW_VALUE_HEADER, rawValueHeaderOf } from "./wire.ts";

export interface NatsStoreClientOptions {
  /** Owned by the caller: close() of the client leaves it open. */
  connection: NatsConnection;
  /** Used when a call passes no deadline. Default 5000 (nats' own default of 1 s is too short for large reads). */
  requestTimeoutMs?: number;
  /** Send commands to the replica their submodel hashes to (docs/adr/0027). Default true. */
  routeToReplicas?: boolean;
  /**
   * Send the writes of one event-loop turn for a replica that announces batches as one message
   * (docs/adr/0042). Default true; needs routeToReplicas.
   */
  batchWrites?: boolean;
  /** Sends out at once per replica before the next writes wait for answers (command-lanes.ts); default unbounded. */
  maxBatchesInFlight?: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;

/**
 * The gateways' StoreClient: request/reply to the model-store queue group. Never throws: no
 * responders or a down connection → `unavailable` (HTTP 503), deadline passed → `timeout` (504).
 *
 * All replies come in on one wildcard subscription per client (`<inbox>.*`), one token per
 * request, so 200 concurrent requests cost 200 messages, not 200 SUB/UNSUB pairs; and a request
 * can take several messages (chunked reply, upload handshake), which nats' request() cannot.
 *
 * A command that names a submodel (shell, concept description) goes to the replica its id hashes
 * to (replica-routing.ts), so each replica group-commits its own submodels' writes. Should that
 * replica have no subscription any more (stopped, died: the server answers "no responders", so
 * the command surely did not run), it is sent again to the queue group, which any replica serves.
 */
export function createNatsStoreClient(options: NatsStoreClientOptions): StoreClient {
  const { connection } = options;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const inboxPrefix = createInbox();
  const pending = new Map<string, PendingRequest>();
  // Requests without a deadline of their own all wait requestTimeoutMs: one timer for them all.
  const deadlines = new OrderedDeadlines<PendingRequest>(requestTimeoutMs, (request) => request.timeout());
  const batch = publishBatchFor(connection);
  const replicas = options.routeToReplicas === false ? undefined : watchReplicas(connection, () => {});
  let nextToken = 0;
  let closed = false;
  // Fail fast while NATS is down rather than holding every request until its deadline.
  let connected = true;

  const watch = watchConnection(connection, (change) => {
    if (change === "disconnect") connected = false;
    if (change === "reconnect") connected = true;
  });
  const replies = connection.subscribe(`${inboxPrefix}.*`, {
    callback: (error, msg) => {
      if (error) return;
      pending.get(msg.subject.slice(inboxPrefix.length + 1))?.receive(msg);
    },
  });
  const lanes =
    replicas && options.batchWrites !== false
      ? createCommandLanes({
          connection,
          batch,
          listen(token, receive) {
            pending.set(token, { receive, abandon: () => {}, timeout: () => {} });
            return `${inboxPrefix}.${token}`;
          },
          unlisten: (token) => pending.delete(token),
          takesBatches: (id) => replicas.batches(id),
          forget: (id) => replicas.forget(id),
          maxBytes: () => chunkBytesFor(connection),
          ...(options.maxBatchesInFlight === undefined ? {} : { maxInFlight: options.maxBatchesInFlight }),
        })
      : undefined;

  function execute<T extends CommandType>(
    command: Command<T>,
    executeOptions: ExecuteOptions = {},
    streamed = false,
  ): Promise<Reply<CommandResult<T>>> {
    if (closed || connection.isClosed()) return Promise.resolve(failure("unavailable", "the store client is closed"));
    if (!connected) return Promise.resolve(failure("unavailable", "the connection to NATS is down"));
    const deadline = executeOptions.deadline ?? Date.now() + requestTimeoutMs;
    const budget = deadline - Date.now();
    if (budget <= 0) return Promise.resolve(failure("timeout", `${command.type}: deadline passed before it was sent`));

    let body: Uint8Array;
    try {
      body = encodeJson(command);
    } catch (error) {
      return Promise.resolve(
        failure("internal", `${command.type}: the command cannot be encoded as JSON: ${(error as Error).message}`),
      );
    }

    return new Promise((resolve) => {
      const token = String(++nextToken);
      // Only a chunked reply needs one (most replies are one message).
      let assembler: ChunkAssembler | undefined;
      const chunkBytes = chunkBytesFor(connection);
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      // False only while it waits in a lane (command-lanes.ts) for the end of the turn or a send out.
      let sent = true;
      const finish = (reply: Reply<unknown>) => {
        if (settled) return;
        settled = true;
        if (timer === undefined) deadlines.delete(request);
        else clearTimeout(timer);
        pending.delete(token);
        resolve(reply as Reply<CommandResult<T>>);
        lane?.onSettled?.();
      };
      // Sent, unanswered: a write may or may not have happened (docs/adr/0017). Never sent (held
      // behind a batch that did not come back): surely not done.
      const timeout = () =>
        finish(
          sent
            ? failure(
                "timeout",
                `${command.type}: no reply within ${budget} ms${WRITE_COMMANDS.has(command.type) ? "; the outcome is unknown" : ""}`,
              )
            : failure(
                "unavailable",
                `${command.type}: not sent within ${budget} ms (the batch before it did not come back); it did not happen`,
              ),
        );
      const settle = (data: Uint8Array) => {
        try {
          finish(toReply(decodeReply(data)));
        } catch (error) {
          finish(failure("internal", `${command.type}: broken reply: ${(error as Error).message}`));
        }
      };

      const key = replicas && partitionKeyOf(command);
      let routedTo = key === undefined ? undefined : replicas?.pick(key);
      let send: (subject: string) => void = () => {};
      // Set once the body went out in chunks to the inbox a replica named (chunking.ts).
      let uploaded = false;

      const request: PendingRequest = {
        abandon: finish,
        timeout,
        receive(msg) {
          try {
            if (isNoResponders(msg)) {
              // The last chunk's own "no responders": the inbox that was to take the body was gone
              // (its replica stopped, or gave up waiting). Without the body nothing was run.
              if (uploaded)
                return finish(
                  failure(
                    "unavailable",
                    `${command.type}: the model-store that was to take its body in chunks no longer listened; it did not happen`,
                  ),
                );
              if (routedTo === undefined)
                return finish(failure("unavailable", `no model-store serves ${command.type}`));
              // Not delivered to the replica it was routed to: any replica may take it.
              replicas?.forget(routedTo);
              routedTo = undefined;
              return send(commandSubject(command.type));
            }
            const upload = uploadSubjectOf(msg);
            if (upload !== undefined) {
              uploaded = true;
              return publishChunks(connection, upload, body, chunkBytes, `${inboxPrefix}.${token}`);
            }
            const pull = streamed ? msg.headers?.get(STREAM_PULL_HEADER) : undefined;
            const whole = isChunk(msg) ? (assembler ??= new ChunkAssembler()).addMessage(msg) : msg.data;
            if (!whole) return;
            if (!pull) return settle(whole);
            const reply = toReply(decodeReply(whole));
            // A streamed body (reply-stream.ts): pulled chunk by chunk, each pull bounded by the
            // request timeout, not the whole transfer.
            if (pull && reply.ok)
              return finish({
                ...reply,
                value: { ...(reply.value as object), chunks: pullReplyStream(connection, pull, requestTimeoutMs) },
              });
            finish(reply);
          } catch (error) {
            finish(failure("internal", `${command.type}: broken reply: ${(error as Error).message}`));
          }
        },
      };
      let lane: LaneItem | undefined;
      pending.set(token, request);
      if (executeOptions.deadline === undefined) deadlines.add(request);
      else timer = setTimeout(timeout, budget);

      try {
        const rawValue = rawValueHeaderOf(executeOptions.rawValue);
        const chunks = body.length > chunkBytes ? chunkCount(body.length, chunkBytes) : undefined;
        const requestHeaders = requestHeadersFor(
          budget,
          streamed,
          rawValue,
          chunks,
          executeOptions.deadline === undefined,
        );
        const reply = `${inboxPrefix}.${token}`;
        const unsent = (error: unknown) =>
          finish(failure("unavailable", `${command.type}: ${(error as Error).message}`));
        const data = body.length <= chunkBytes ? body : Empty;
        send = (subject) => batch.publish(subject, data, { reply, headers: requestHeaders }, unsent);
        if (
          lanes &&
          routedTo !== undefined &&
          !streamed &&
          chunks === undefined &&
          BATCHED_COMMANDS.has(command.type) &&
          replicas?.batches(routedTo)
        ) {
          const replica = routedTo;
          sent = false;
          lane = {
            body,
            rawValue: executeOptions.rawValue,
            deadline,
            settled: () => settled,
            onSettled: undefined,
            markSent: () => {
              sent = true;
            },
            receiveData: settle,
            fail: finish,
            sendAlone(anyReplica) {
              sent = true;
              if (anyReplica) routedTo = undefined;
              send(anyReplica ? commandSubject(command.type) : replicaCommandSubject(replica, command.type));
            },
          };
          return lanes.add(replica, lane);
        }
        send(routedTo === undefined ? commandSubject(command.type) : replicaCommandSubject(routedTo, command.type));
      } catch (error) {
        finish(failure("unavailable", `${command.type}: ${(error as Error).message}`));
      }
    });
  }

  return {
    execute,
    async stream(command, streamOptions) {
      const reply = (await execute(command, streamOptions, true)) as Reply<unknown>;
      if (reply.ok && !(typeof reply.value === "object" && reply.value !== null && "chunks" in reply.value))
        return failure("internal", `${command.type}: the model-store answered without a stream`);
      return reply as Reply<FileStream>;
    },
    async close() {
      if (closed) return;
      closed = true;
      watch.stop();
      replicas?.close();
      lanes?.close();
      if (!connection.isClosed()) replies.unsubscribe();
      for (const request of [...pending.values()]) request.abandon(failure("unavailable", "the store client closed"));
      deadlines.close();
    },
  };
}

interface PendingRequest {
  receive(msg: Msg): void;
  abandon(reply: ReplyFailure): void;
  /** No reply within its budget. */
  timeout(): void;
}

/**
 * The headers of a request. Most requests carry the same few (the default budget, a raw-value mode):
 * those are built and encoded once and shared, since nats only reads them (`encode()`) when it
 * publishes. A caller's own deadline gives a budget of its own, and step 1 of a chunked request
 * (chunking.ts) announces its chunk count (the body goes once a replica names its inbox): those get
 * fresh headers.
 */
const sharedHeaders = new Map<string, MsgHdrs>();

function requestHeadersFor(
  budget: number,
  streamed: boolean,
  rawValue: string | undefined,
  chunks: number | undefined,
  share: boolean,
): MsgHdrs {
  const key = share && chunks === undefined ? `${budget} ${streamed ? 1 : 0} ${rawValue ?? ""}` : undefined;
  const known = key === undefined ? undefined : sharedHeaders.get(key);
  if (known) return known;
  const requestHeaders = headers();
  requestHeaders.set(BUDGET_HEADER, String(budget));
  if (streamed) requestHeaders.set(STREAM_HEADER, "1");
  if (rawValue !== undefined) requestHeaders.set(RAW_VALUE_HEADER, rawValue);
  if (chunks !== undefined) requestHeaders.set(REQUEST_CHUNKS_HEADER, String(chunks));
  if (key !== undefined) {
    // nats' MsgHdrsImpl encodes its text on every publish; a shared object's never changes (nobody
    // sets a header on it), so its bytes are kept. Should a later nats name that method otherwise,
    // this is a property nobody calls and nats encodes as before: slower, never wrong.
    const impl = requestHeaders as MsgHdrs & { encode?: () => Uint8Array };
    if (typeof impl.encode === "function") {
      const encoded = impl.encode();
      impl.encode = () => encoded;
    }
    sharedHeaders.set(key, requestHeaders);
  }
  return requestHeaders;
}

function failure(code: ErrorCode, message: string): ReplyFailure {
  return { ok: false, error: { code, message } };
}

/** A decoded body that is not a Reply means a broken responder; say so rather than pass it on. */
function toReply(body: unknown): Reply<unknown> {
  const reply = body as Reply<unknown>;
  if (typeof reply === "object" && reply !== null) {
    if (reply.ok === true) return reply;
    if (reply.ok === false && typeof reply.error === "object" && reply.error !== null && isErrorCode(reply.error.code))
      return reply;
  }
  throw new Error("not a reply");
}
