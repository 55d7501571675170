import { randomUUID } from "node:crypto";
import type { ElementJson } from "../../aas/index.ts";
import { CommandError, type EventKind, type OperationResult } from "../../contracts/index.ts";
import { readJsonable } from "../aas-input.ts";
import { type BackoffPolicy, backoffDelay } from "../backoff.ts";
import { type CommitRunner, eventDraft } from "../commit-runner.ts";
import type { Clock, OperationOutcome, OperationProviderRegistry, Repository } from "../ports/index.ts";
import { asVariables, matchArguments, type OperationDeclaration } from "./operation-arguments.ts";
import { isFinished, type OperationHandleRecord, parseHandle } from "./operation-handle.ts";
import { message, runningResult, unfinishedResult } from "./operation-results.ts";

/**
 * The invocation lifecycle: one provider call per invocation, bounded by a time-out, with its
 * events and (for asynchronous calls) its handle in the store.
 *
 * - The outcome is decided once, in this process, by whichever comes first: the provider's answer,
 *   the time-out, or an interruption (/reset, shutdown). A later contender changes nothing, so a
 *   time-out never overwrites a result that already arrived (spec §3), and the provider is told to
 *   stop (its AbortSignal) when it lost.
 * - Every invocation commits `operation.invoked` before the provider is called and
 *   `operation.finished` after the outcome is decided: through the commit path, so both carry
 *   sequence numbers and travel the same way as every other event (the Redis outbox).
 * - Handles: Initiated → Running → a final state, each write a compare-and-set on the handle's
 *   version, so of two writers (the runner, a replica marking it orphaned, /reset deleting it) the
 *   first wins and the other's write is dropped. While it runs asynchronous invocations, the runner
 *   renews a lease in the store; a handle whose runner's lease is gone is marked Failed by whichever
 *   process reads it next (docs/architecture.md §8).
 */

export interface OperationRunnerOptions {
  repository: Repository;
  commit: CommitRunner;
  clock: Clock;
  providers: OperationProviderRegistry;
  /** How long a handle stays readable after its last change (core.operationHandleTtl). */
  handleTtlMs: number;
  /** Lease of this runner while it runs asynchronous invocations; renewed every third of it. */
  leaseMs: number;
  /** Unique per process (a handle names its runner by it). */
  runnerId?: string;
  /** Invocations run at once at most (core.maxRunningOperations); past it one is refused (503). */
  maxRunning?: number;
}

export interface Invocation {
  submodelId: string;
  idShortPath: string;
  inputArguments: ElementJson[];
  inoutputArguments: ElementJson[];
  declaration: OperationDeclaration;
  origin?: string;
  correlationId?: string;
}

export interface OperationRunner {
  readonly runnerId: string;
  /**
   * Runs to the end: Completed, Failed, Timeout (after timeoutMs) or Canceled. `commit`: the
   * command's own commit runner, which claims its Idempotency-Key with `operation.invoked`, before
   * the provider runs: a repeat then never runs it a second time.
   */
  invokeSync(invocation: Invocation, timeoutMs: number, commit?: CommitRunner): Promise<OperationResult>;
  /** Creates the handle, starts the execution in the background and answers the handle id. */
  invokeAsync(invocation: Invocation, commit?: CommitRunner): Promise<string>;
  /** The handle as stored, after marking it Failed if its runner is gone; undefined if unknown or expired. */
  readHandle(handleId: string): Promise<OperationHandleRecord | undefined>;
  /** /reset: cancel what runs here and delete every handle. */
  reset(): Promise<void>;
  /** Shutdown: what still runs here ends as Failed; the lease is no longer renewed. */
  close(): Promise<void>;
}

/** A handle in the store as the runner keeps it: the in-out arguments, to answer them on any end. */
interface StoredRecord extends OperationHandleRecord {
  inoutputArguments: ElementJson[];
}

interface Running {
  async: boolean;
  interrupt(state: "Canceled" | "Failed", text: string): void;
  done: Promise<unknown>;
}

/** core.maxRunningOperations' default. */
export const DEFAULT_MAX_RUNNING_OPERATIONS = 1000;
/** setTimeout fires at once above this (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;
/** Unfinished handles outlive the execution's own bound a little, so its last write finds them. */
const UNFINISHED_TTL_MARGIN_MS = 60_000;
/**
 * How long the end of an invocation that ran is retried while the store is unreachable (a Redis
 * restart): its result is not lost because the store was away for a few seconds. An asynchronous
 * one's handle stays tracked meanwhile, so it is not taken for orphaned (ADR 0006's amendment).
 */
const FINAL_WRITE_PATIENCE_MS = 60_000;
/** 500, 1000, then 2000 ms between the final write's attempts. */
const FINAL_WRITE_BACKOFF: BackoffPolicy = { baseMs: 250, capMs: 2000, jitter: "none" };

export function createOperationRunner(options: OperationRunnerOptions): OperationRunner {
  const { repository, clock, providers, handleTtlMs, leaseMs } = options;
  const runnerId = options.runnerId ?? randomUUID();
  const running = new Map<string, Running>();
  let leaseTimer: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  const publish = (
    kind: EventKind,
    invocation: Invocation,
    payload: Record<string, unknown>,
    commit: CommitRunner = options.commit,
  ) =>
    commit(undefined, async () => ({
      commit: {
        preconditions: [],
        ops: [],
        event: eventDraft(
          {
            kind,
            id: invocation.submodelId,
            idShortPath: invocation.idShortPath,
            origin: invocation.origin,
            correlationId: invocation.correlationId,
          },
          payload,
          clock.now(),
        ),
      },
    }));

  const invokedPayload = (invocationId: string, async: boolean, invocation: Invocation) => ({
    invocationId,
    async,
    inputArguments: asVariables(invocation.inputArguments),
    inoutputArguments: asVariables(invocation.inoutputArguments),
  });

  function track(
    id: string,
    invocation: Invocation,
    async: boolean,
  ): { entry: Running; interrupted: Promise<OperationResult> } {
    let interrupt!: (result: OperationResult) => void;
    const interrupted = new Promise<OperationResult>((resolve) => (interrupt = resolve));
    const entry: Running = {
      async,
      interrupt: (state, text) => interrupt(unfinishedResult(state, text, invocation.inoutputArguments, clock.now())),
      done: Promise.resolve(),
    };
    running.set(id, entry);
    return { entry, interrupted };
  }

  function untrack(id: string): void {
    running.delete(id);
    if (leaseTimer !== undefined && ![...running.values()].some((entry) => entry.async)) {
      clearInterval(leaseTimer);
      leaseTimer = undefined;
    }
  }

  /** The lease must exist before a handle names this runner, or a reader would take it as orphaned. */
  async function ensureLease(): Promise<void> {
    if (leaseTimer !== undefined) return;
    await repository.renewOperationRunner(runnerId, leaseMs);
    if (leaseTimer !== undefined) return;
    // A failed renewal is retried at the next tick; only a store down for a whole lease loses it.
    leaseTimer = setInterval(
      () => void repository.renewOperationRunner(runnerId, leaseMs).catch(() => {}),
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    leaseTimer.unref();
  }

  /** The provider's answer as a result: its arguments checked like a request's (a bad one is a failure). */
  function outcomeResult(outcome: OperationOutcome | undefined, invocation: Invocation): OperationResult {
    const now = clock.now();
    const messages = Array.isArray(outcome?.messages) ? outcome.messages : [];
    if (outcome?.success === false) {
      const reported =
        messages.length > 0 ? messages : [message("Error", "The operation provider reported a failure", now)];
      return {
        messages: reported,
        executionState: "Failed",
        success: false,
        inoutputArguments: asVariables(invocation.inoutputArguments),
      };
    }
    try {
      const verified = (elements: ElementJson[]) =>
        elements.map((element) => readJsonable(element, "SubmodelElement", true));
      const outputs = matchArguments(invocation.declaration.output, verified(outcome?.outputArguments ?? []), "output");
      const inoutputs =
        outcome?.inoutputArguments === undefined
          ? invocation.inoutputArguments
          : matchArguments(invocation.declaration.inoutput, verified(outcome.inoutputArguments), "inoutput");
      return {
        messages,
        executionState: "Completed",
        success: true,
        outputArguments: asVariables(outputs),
        inoutputArguments: asVariables(inoutputs),
      };
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
      return unfinishedResult(
        "Failed",
        `The operation provider answered arguments that do not fit the Operation: ${error.message}`,
        invocation.inoutputArguments,
        now,
      );
    }
  }

  /** One provider call raced against the time-out and an interruption; the first to settle decides. */
  async function execute(
    invocation: Invocation,
    interrupted: Promise<OperationResult>,
    timeoutMs: number,
    timeoutText: string,
  ): Promise<OperationResult> {
    const provider = providers.find(invocation.submodelId, invocation.idShortPath);
    if (!provider) {
      return unfinishedResult(
        "Failed",
        `No operation provider is configured for the Operation '${invocation.idShortPath}' of submodel '${invocation.submodelId}' (configure one in assetConnections → operationProviders)`,
        invocation.inoutputArguments,
        clock.now(),
      );
    }
    const controller = new AbortController();
    const call = (async () => {
      const outcome = await provider.invoke({
        submodelId: invocation.submodelId,
        idShortPath: invocation.idShortPath,
        inputArguments: structuredClone(invocation.inputArguments),
        inoutputArguments: structuredClone(invocation.inoutputArguments),
        signal: controller.signal,
      });
      return outcomeResult(outcome, invocation);
    })().catch((error: unknown) =>
      unfinishedResult(
        "Failed",
        `The operation provider failed: ${error instanceof Error ? error.message : String(error)}`,
        invocation.inoutputArguments,
        clock.now(),
      ),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<OperationResult>((resolve) => {
      timer = setTimeout(
        () => resolve(unfinishedResult("Timeout", timeoutText, invocation.inoutputArguments, clock.now())),
        Math.min(timeoutMs, MAX_TIMER_MS),
      );
    });
    const decided = await Promise.race([
      call.then((result) => ({ result, byProvider: true })),
      timedOut.then((result) => ({ result, byProvider: false })),
      interrupted.then((result) => ({ result, byProvider: false })),
    ]);
    clearTimeout(timer);
    if (!decided.byProvider)
      controller.abort(new Error(decided.result.messages[0]?.text ?? decided.result.executionState));
    return decided.result;
  }

  const write = (record: StoredRecord, expectedVersion: number | null) =>
    repository.putOperationHandle(record.handleId, JSON.stringify(record), {
      ttlMs: isFinished(record) ? handleTtlMs : handleTtlMs + UNFINISHED_TTL_MARGIN_MS,
      expectedVersion,
    });

  /** The final write matters most (else the handle stays Running): retried through a short outage. */
  /** `work` until it succeeds, the patience is spent or the runner closes (then its last error). */
  async function persistently<T>(work: () => Promise<T>, patienceMs = FINAL_WRITE_PATIENCE_MS): Promise<T> {
    const until = Date.now() + patienceMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        if (closed || Date.now() >= until) throw error;
        await new Promise((resolve) => setTimeout(resolve, backoffDelay(FINAL_WRITE_BACKOFF, attempt)));
      }
    }
  }

  const writeFinal = (record: StoredRecord, expectedVersion: number) =>
    persistently(() => write(record, expectedVersion));

  async function runInBackground(
    record: StoredRecord,
    version: number,
    invocation: Invocation,
    interrupted: Promise<OperationResult>,
  ): Promise<void> {
    try {
      const runningVersion = await write({ ...record, result: runningResult("Running") }, version);
      // Gone (reset) or already decided by another process: nothing left to run.
      if (runningVersion === undefined) return;
      // spec §3: no client time-out here; the handle's lifetime still bounds the execution.
      const result = await execute(
        invocation,
        interrupted,
        handleTtlMs,
        "The operation did not finish within the lifetime of its handle (core.operationHandleTtl)",
      );
      const finalVersion = await writeFinal({ ...record, result }, runningVersion);
      if (finalVersion !== undefined)
        await persistently(() =>
          publish("operation.finished", invocation, { invocationId: record.handleId, async: true, result }),
        );
    } catch {
      // The store is unreachable: the handle stays unfinished until this runner's lease lapses, and
      // then the next reader marks it Failed. Nobody awaits this promise, so nothing else to do.
    } finally {
      untrack(record.handleId);
    }
  }

  const maxRunning = options.maxRunning ?? DEFAULT_MAX_RUNNING_OPERATIONS;
  function checkOpen(): void {
    if (closed)
      throw new CommandError("unavailable", "The model store is shutting down; the operation was not started");
    if (running.size >= maxRunning)
      throw new CommandError(
        "unavailable",
        `${running.size} operations are running in this process, the most it runs at once (core.maxRunningOperations); the operation was not started, try again later`,
      );
  }

  return {
    runnerId,

    async invokeSync(invocation, timeoutMs, commit) {
      checkOpen();
      const invocationId = randomUUID();
      const { entry, interrupted } = track(invocationId, invocation, false);
      const run = (async () => {
        await publish("operation.invoked", invocation, invokedPayload(invocationId, false, invocation), commit);
        const result = await execute(
          invocation,
          interrupted,
          timeoutMs,
          `The operation did not finish within the client time-out (${timeoutMs} ms)`,
        );
        // The operation ran: its caller gets its result even when the store stays away longer than
        // the patience and the end cannot be recorded. A 503 ("surely did not run") would be false,
        // and with it a repeat ran the asset a second time.
        // Its caller waits meanwhile: for as long as it was willing to wait for the operation itself.
        await persistently(
          () => publish("operation.finished", invocation, { invocationId, async: false, result }),
          Math.min(timeoutMs, FINAL_WRITE_PATIENCE_MS),
        ).catch(() => undefined);
        return result;
      })();
      entry.done = run.catch(() => {});
      try {
        return await run;
      } finally {
        untrack(invocationId);
      }
    },

    async invokeAsync(invocation, commit) {
      checkOpen();
      const handleId = randomUUID();
      // Tracked before the handle exists: a status read right after the put must not take it as orphaned.
      const { entry, interrupted } = track(handleId, invocation, true);
      const record: StoredRecord = {
        handleId,
        submodelId: invocation.submodelId,
        idShortPath: invocation.idShortPath,
        owner: runnerId,
        createdAt: clock.now().toISOString(),
        result: runningResult("Initiated"),
        inoutputArguments: invocation.inoutputArguments,
      };
      let version: number | undefined;
      try {
        await ensureLease();
        version = await write(record, null);
        if (version === undefined) throw new Error(`Operation handle '${handleId}' exists already`);
        await publish("operation.invoked", invocation, invokedPayload(handleId, true, invocation), commit);
      } catch (error) {
        untrack(handleId);
        // Best effort: a handle that was created must not look alive forever.
        if (version !== undefined) {
          const failed = unfinishedResult(
            "Failed",
            "The invocation could not be started",
            invocation.inoutputArguments,
            clock.now(),
          );
          await write({ ...record, result: failed }, version).catch(() => {});
        }
        throw error;
      }
      entry.done = runInBackground(record, version, invocation, interrupted);
      return handleId;
    },

    async readHandle(handleId) {
      const stored = await repository.getOperationHandle(handleId);
      if (!stored) return undefined;
      const record = parseHandle(stored.json) as StoredRecord;
      if (isFinished(record)) return record;
      const orphaned =
        record.owner === runnerId ? !running.has(handleId) : !(await repository.isOperationRunnerAlive(record.owner));
      if (!orphaned) return record;
      const result = unfinishedResult(
        "Failed",
        "The model-store process running this operation stopped before it finished",
        record.inoutputArguments ?? [],
        clock.now(),
      );
      const failed: StoredRecord = { ...record, result };
      if ((await write(failed, stored.version)) === undefined) {
        // Someone else wrote in between (the runner's result, another reader's mark): that one stands.
        const again = await repository.getOperationHandle(handleId);
        return again ? parseHandle(again.json) : undefined;
      }
      const invocation = { submodelId: record.submodelId, idShortPath: record.idShortPath } as Invocation;
      await publish("operation.finished", invocation, { invocationId: handleId, async: true, result });
      return failed;
    },

    async reset() {
      const entries = [...running.values()];
      for (const entry of entries) entry.interrupt("Canceled", "The store was reset while the operation ran");
      await Promise.allSettled(entries.map((entry) => entry.done));
      await repository.deleteOperationHandles();
    },

    async close() {
      closed = true;
      const entries = [...running.values()];
      for (const entry of entries)
        entry.interrupt("Failed", "The model-store process stopped before the operation finished");
      await Promise.allSettled(entries.map((entry) => entry.done));
      if (leaseTimer !== undefined) clearInterval(leaseTimer);
      leaseTimer = undefined;
    },
  };
}
