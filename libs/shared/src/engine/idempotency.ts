import {
  type ChangeEventDraft,
  type Command,
  CommandError,
  type CommandType,
  failureReply,
  type Reply,
  WRITE_COMMANDS,
} from "../contracts/index.ts";
import type { PlannedCommit } from "./commit-runner.ts";
import type { IdempotencyRecord, Repository } from "./ports/index.ts";

/**
 * Idempotency-Key handling in the engine (docs/adr/0017). A write that carries a key claims it in
 * its (first) commit, atomically with the write: the commit's precondition "the key is unused"
 * makes concurrent duplicates and a repeat after a crash unable to execute a second time, in every
 * process that shares the repository. Once the command answers, its reply is stored under the key
 * for the idempotency window and repeats get it.
 *
 * What a repeat gets:
 * - the key is unknown: the command runs (a failure that wrote nothing is not remembered, so a
 *   repeat of it runs again);
 * - the key was used for a different request (fingerprint): 422;
 * - the stored reply: the first outcome;
 * - a commit claimed the key but no reply is stored (the first request is between its commit and
 *   its answer, or its process died there): for the writes of one commit whose reply follows from
 *   the commit alone (REBUILDABLE), that reply, rebuilt from the commit record; for the others 409;
 * - the same key running in this process: 409.
 */

export const DEFAULT_IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;
/**
 * The longest reply kept under a key (JSON characters), the bound the change event's payload has
 * too (256 KiB). A POST of a 20 MB element kept all of it for the whole window, also after the
 * element was deleted: each POST and DELETE with a fresh key left 28 MB on the heap (embedded) or in
 * Redis. A repeat of a write whose reply was not kept gets it rebuilt from the commit record, or a
 * 409 that says it was committed (black-box finding).
 */
export const MAX_KEPT_REPLY_CHARS = 256 * 1024;
const MAX_KEY_LENGTH = 255;
const MAX_FINGERPRINT_LENGTH = 256;

/**
 * REBUILDABLE (1 of 2): writes of one commit whose handler returns right after it, so the reply
 * follows from the commit record: value null, the revision (except NO_REVISION) and the seq.
 */
const NULL_RESULT = new Set<CommandType>([
  "PutAssetAdministrationShellById",
  "DeleteAssetAdministrationShellById",
  "PutAssetInformation",
  "DeleteSubmodelReferenceById",
  "PutConceptDescriptionById",
  "DeleteConceptDescriptionById",
  "DeleteAllAssetLinksById",
  "PutSubmodelById",
  "PatchSubmodelById",
  "DeleteSubmodelById",
  "PutSubmodelElementByPath",
  "PatchSubmodelElementByPath",
  "DeleteSubmodelElementByPath",
  "PatchSubmodelElementValueByPath",
  "PutFileByPath",
  "DeleteFileByPath",
  "PutThumbnail",
  "DeleteThumbnail",
]);
/** Deletes whose reply carries no revision. */
const NO_REVISION = new Set<CommandType>([
  "DeleteAssetAdministrationShellById",
  "DeleteConceptDescriptionById",
  "DeleteSubmodelById",
  "DeleteSubmodelElementByPath",
]);
/** REBUILDABLE (2 of 2): the reply's value is the created resource, which the event carries as its payload (up to 256 KiB). */
const CREATED_RESULT = new Set<CommandType>([
  "PostAssetAdministrationShell",
  "PostSubmodel",
  "PostConceptDescription",
  "PostSubmodelElement",
]);

/** The idempotency part of one command's run: what its commits must claim. */
export interface IdempotentRun {
  /** Wraps a commit's plan so that it claims the key, until one commit has. */
  plan<A extends unknown[]>(plan: (...args: A) => Promise<PlannedCommit>): (...args: A) => Promise<PlannedCommit>;
  /** Call after a commit made with a `plan()` succeeded. */
  committed(): void;
}

export interface Idempotency {
  /** Run `execute` at most once per key; `execute` passes `run` to its commits. Never throws. */
  execute<T>(command: Command, execute: (run: IdempotentRun | undefined) => Promise<Reply<T>>): Promise<Reply<T>>;
}

export function createIdempotency(repository: Repository, options: { windowMs: number }): Idempotency {
  const windowMs = options.windowMs;
  /** Keys of commands running in this process: a repeat arriving meanwhile is answered 409 at once. */
  const running = new Set<string>();

  async function answerFromRecord<T>(
    command: Command,
    fingerprint: string,
    record: IdempotencyRecord,
  ): Promise<Reply<T> | undefined> {
    if (record.fingerprint !== fingerprint) {
      return failure(
        "unprocessable",
        "The Idempotency-Key was already used for a different request (another method, path or body)",
      );
    }
    if (record.reply !== undefined) return JSON.parse(record.reply) as Reply<T>;
    if (record.seq === undefined) return undefined;
    const rebuilt = rebuildReply(command, record.seq, record.event);
    if (rebuilt) return rebuilt as Reply<T>;
    const at = record.committedAt === undefined ? "" : ` at ${new Date(record.committedAt).toISOString()}`;
    return failure(
      "conflict",
      `The request with this Idempotency-Key was committed (sequence number ${record.seq}${at}) but its reply is not available: it is still being processed, its process ended before answering, or its reply was larger than the ${MAX_KEPT_REPLY_CHARS / 1024} KiB a key keeps (read the resource)`,
    );
  }

  async function executeWithKey<T>(
    command: Command,
    idempotency: NonNullable<Command["idempotency"]>,
    execute: (run: IdempotentRun | undefined) => Promise<Reply<T>>,
  ): Promise<Reply<T>> {
    const { key, fingerprint } = idempotency;
    if (
      typeof key !== "string" ||
      key.length === 0 ||
      key.length > MAX_KEY_LENGTH ||
      typeof fingerprint !== "string" ||
      fingerprint.length > MAX_FINGERPRINT_LENGTH
    ) {
      return failure("bad-request", "Invalid idempotency key or fingerprint");
    }
    return await runOnce(command, key, fingerprint, execute);
  }

  return {
    // Not async: a command without a key (nearly all) goes straight to `execute`, without a frame of
    // its own and the microtask turns of unwrapping its promise (docs/adr/0046).
    execute(command, execute) {
      const idempotency = command.idempotency;
      if (idempotency === undefined || !WRITE_COMMANDS.has(command.type)) return execute(undefined);
      return executeWithKey(command, idempotency, execute);
    },
  };

  async function runOnce<T>(
    command: Command,
    key: string,
    fingerprint: string,
    execute: (run: IdempotentRun | undefined) => Promise<Reply<T>>,
  ): Promise<Reply<T>> {
    try {
      const known = await repository.getIdempotencyRecord(key);
      if (known) {
        const answer = await answerFromRecord<T>(command, fingerprint, known);
        if (answer) return answer;
      }
    } catch (error) {
      // Reading the record failed: nothing ran.
      return failureReply(error);
    }
    // Only a repeat that would run itself meets the one running here: repeats that find the outcome
    // recorded (several at once, long after the first) all answer it, none of them counts as running.
    // Checked and taken in one step: a duplicate arriving while this one runs answers 409 at once.
    if (running.has(key))
      return failure("conflict", "A request with this Idempotency-Key is still being processed; repeat it later");
    running.add(key);
    try {
      return await runClaiming(command, key, fingerprint, execute);
    } finally {
      running.delete(key);
    }
  }

  async function runClaiming<T>(
    command: Command,
    key: string,
    fingerprint: string,
    execute: (run: IdempotentRun | undefined) => Promise<Reply<T>>,
  ): Promise<Reply<T>> {
    let claimed = false;
    let lostTheKey = false;
    const run: IdempotentRun = {
      plan:
        (plan) =>
        async (...args) => {
          const planned = await plan(...args);
          if (claimed) return planned;
          return {
            commit: {
              ...planned.commit,
              preconditions: [...planned.commit.preconditions, { on: "idempotency-key-free", key }],
              idempotency: { key, fingerprint, ttlMs: windowMs },
            },
            onFailed: (precondition) => {
              if (precondition.on !== "idempotency-key-free") return planned.onFailed?.(precondition);
              lostTheKey = true;
              return new CommandError("conflict", "A request with this Idempotency-Key is being processed");
            },
          };
        },
      committed: () => {
        claimed = true;
      },
    };
    const reply = await execute(run);
    // A duplicate running elsewhere claimed the key first: answer what it did. Also when this run
    // failed before it reached its commit: it may have run into what the duplicate just wrote (a
    // POST finding the element there, 409 "already exists"), which is not this request's outcome.
    if (lostTheKey || (!reply.ok && !claimed)) {
      const record = await repository.getIdempotencyRecord(key).catch(() => undefined);
      return (record && (await answerFromRecord<T>(command, fingerprint, record))) ?? reply;
    }
    // A failure that wrote nothing is not remembered; one after a commit (a command of several
    // commits failing halfway) is, like every success, unless its own outcome is unknown.
    if (reply.ok || (claimed && reply.error.code !== "timeout" && reply.error.code !== "unavailable")) {
      const text = JSON.stringify(reply);
      if (text.length <= MAX_KEPT_REPLY_CHARS)
        await repository.putIdempotencyReply(key, fingerprint, text, windowMs).catch(() => {
          // The outcome stands; a repeat finds the commit record and rebuilds the reply (or 409s).
        });
    }
    return reply;
  }
}

function failure(code: "bad-request" | "conflict" | "unprocessable", message: string): Reply<never> {
  return { ok: false, error: { code, message } };
}

function rebuildReply(command: Command, seq: number, eventJson: string | undefined): Reply<unknown> | undefined {
  const { type } = command;
  if (NULL_RESULT.has(type)) {
    // Below a shell, DELETE of a submodel commits twice (the submodel, then the shell's reference).
    if (type === "DeleteSubmodelById" && (command.params as { aasId?: string }).aasId !== undefined) return undefined;
    return NO_REVISION.has(type) ? { ok: true, value: null, seq } : { ok: true, value: null, revision: seq, seq };
  }
  if (!CREATED_RESULT.has(type) || eventJson === undefined) return undefined;
  let event: ChangeEventDraft;
  try {
    event = JSON.parse(eventJson) as ChangeEventDraft;
  } catch {
    return undefined;
  }
  if (event.payload === undefined) return undefined;
  // A list item's ETag also names the item (preconditions.ts itemOf), which the event does not
  // carry: such an answer goes without an ETag rather than with one that names no element.
  const listItem = event.idShortPath?.includes("[") === true;
  return {
    ok: true,
    value: event.payload,
    ...(listItem ? {} : { revision: seq }),
    ...(event.idShortPath !== undefined ? { idShortPath: event.idShortPath } : {}),
    seq,
  };
}
