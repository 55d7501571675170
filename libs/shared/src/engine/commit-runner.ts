import { type ChangeEvent, type ChangeEventDraft, CommandError, MAX_EVENT_PAYLOAD_BYTES } from "../contracts/index.ts";
import { type BackoffPolicy, backoffDelay } from "./backoff.ts";
import { createBatchOverlay } from "./batch-overlay.ts";
import { KeyedLock } from "./keyed-lock.ts";
import type { Commit, CommitPrecondition, CommitResult, EventBus, Repository } from "./ports/index.ts";
import { createRecordCache } from "./record-cache.ts";

/**
 * What a write handler builds from fresh reads: the commit, plus how to explain a failed
 * precondition. Preconditions that say "must not exist" fail for a semantic reason (409); the
 * others are compare-and-set guards against a concurrent writer, so the handler is simply re-run.
 */
export interface PlannedCommit {
  commit: Commit;
  /** Override for a failed precondition: an error to answer with, or "retry". */
  onFailed?: (precondition: CommitPrecondition) => CommandError | "retry" | undefined;
}

/**
 * Plan (read + check) and commit, re-planning when a concurrent writer got in between. `target`
 * names what the write addresses (e.g. a submodel element); writes to the same target inside this
 * process run one at a time, so they do not even compete.
 *
 * `batched` is the group commit of one target's writes: while a commit to the target is under way,
 * the writes that arrive queue up; then all of them are planned one after the other, each on top of
 * the previous ones (reads through a BatchOverlay, which the plan MUST use instead of the
 * repository), and committed in one `commitBatch`. Order, atomicity and If-Match hold as if they ran
 * one by one: each commit's compare-and-set names the state the previous one leaves.
 */
export type CommitRunner = ((
  target: string | undefined,
  plan: () => Promise<PlannedCommit>,
) => Promise<ChangeEvent>) & {
  batched(target: string, plan: (reads: Repository) => Promise<PlannedCommit>): Promise<ChangeEvent>;
  /**
   * Commits planned without reads, all at once (one `commitBatch`: one Redis round trip and fsync),
   * each settled like any other (cache, event published after its commit). For bulk creation
   * (imports): the caller answers each failed precondition itself; nothing is retried.
   */
  many(commits: Commit[]): Promise<CommitResult[]>;
};

/** Writes planned and committed together at most (bounds one script call and the wait of the first). */
const MAX_GROUP = 256;

interface QueuedWrite {
  plan: (reads: Repository) => Promise<PlannedCommit>;
  attempt: number;
  resolve(event: ChangeEvent): void;
  reject(error: unknown): void;
}

const MAX_ATTEMPTS = 12;
/** Between conflict retries: a random pause below 2, 4, 8, … ms (at most 50), so racing writers do not collide again. */
const CONFLICT_BACKOFF: BackoffPolicy = { baseMs: 1, capMs: 50, jitter: "full" };

function defaultFailure(precondition: CommitPrecondition): CommandError | "retry" {
  if (precondition.on === "id-free") {
    return new CommandError("conflict", `An identifiable with id '${precondition.id}' already exists`);
  }
  // The engine's idempotency wrapper answers this one itself (idempotency.ts); this is the fallback.
  if (precondition.on === "idempotency-key-free")
    return new CommandError("conflict", "A request with this Idempotency-Key is being processed");
  if (precondition.revision === null) {
    const what =
      precondition.on === "element"
        ? `A submodel element at '${precondition.path}'`
        : `An identifiable with id '${precondition.id}'`;
    return new CommandError("conflict", `${what} already exists`);
  }
  return "retry";
}

export interface CommitRunnerOptions {
  /** Element records kept for planning value writes (record-cache.ts); 0 = none (memory needs none). */
  recordCacheSize?: number;
}

export function createCommitRunner(
  repository: Repository,
  bus: EventBus | undefined,
  options: CommitRunnerOptions = {},
): CommitRunner {
  const lock = new KeyedLock();
  const cache = options.recordCacheSize ? createRecordCache(options.recordCacheSize) : undefined;
  const queues = new Map<string, QueuedWrite[]>();
  /** What every commit's result means, batched or not: the cache learns it, a success is published. */
  const settle = async (commit: Commit, result: CommitResult): Promise<void> => {
    if (!result.ok) return cache?.failed(commit);
    cache?.committed(commit, result.seq);
    // Published after the commit, never before: subscribers only ever see committed state.
    if (bus) await bus.publish(result.event);
  };
  const attempts = async (plan: () => Promise<PlannedCommit>): Promise<ChangeEvent> => {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const planned = await plan();
      const result = await repository.commit(planned.commit);
      await settle(planned.commit, result);
      if (result.ok) return result.event;
      const failed = planned.commit.preconditions[result.failed];
      const outcome = planned.onFailed?.(failed) ?? defaultFailure(failed);
      if (outcome !== "retry") throw outcome;
      // A writer in another process changed what we read: back off (jittered, growing), re-plan.
      await new Promise((resolve) => setTimeout(resolve, backoffDelay(CONFLICT_BACKOFF, attempt)));
    }
    throw new CommandError("conflict", "The target is being modified concurrently; please retry");
  };
  /** One group: plan each write on top of the ones before it, commit all at once, settle each. */
  const commitGroup = async (group: QueuedWrite[], retry: QueuedWrite[]): Promise<void> => {
    const overlay = createBatchOverlay();
    const planned: { write: QueuedWrite; planned: PlannedCommit }[] = [];
    for (let i = 0; i < group.length; i++) {
      const write = group[i]!;
      try {
        let plan: PlannedCommit;
        const view = cache?.view(repository);
        try {
          plan = await write.plan(overlay.over(view?.reads ?? repository));
        } catch (error) {
          if (!view?.usedCache()) throw error;
          // Planned on a cached record that may be stale (another replica wrote): plan it fresh.
          view.forget();
          plan = await write.plan(overlay.over(repository));
        }
        if (!overlay.add(plan.commit, planned.length)) {
          // Structure changes: later plans could not read it through the overlay, so they wait.
          planned.push({ write, planned: plan });
          retry.push(...group.slice(i + 1));
          break;
        }
        planned.push({ write, planned: plan });
      } catch (error) {
        write.reject(error);
      }
    }
    if (planned.length === 0) return;
    let results: CommitResult[];
    try {
      results = await repository.commitBatch(planned.map((p) => p.planned.commit));
    } catch (error) {
      for (const p of planned) p.write.reject(error);
      return;
    }
    for (let i = 0; i < planned.length; i++) {
      const { write, planned: plan } = planned[i]!;
      const result = results[i]!;
      await settle(plan.commit, result);
      if (result.ok) {
        write.resolve(result.event);
        continue;
      }
      const outcome =
        plan.onFailed?.(plan.commit.preconditions[result.failed]) ??
        defaultFailure(plan.commit.preconditions[result.failed]);
      if (outcome !== "retry") write.reject(outcome);
      else if (write.attempt >= MAX_ATTEMPTS)
        write.reject(new CommandError("conflict", "The target is being modified concurrently; please retry"));
      else retry.push({ ...write, attempt: write.attempt + 1 });
    }
  };

  /** Runs under the target's lock until its queue is empty. */
  const drain = async (target: string): Promise<void> => {
    for (;;) {
      const queue = queues.get(target);
      if (!queue || queue.length === 0) {
        queues.delete(target);
        return;
      }
      const group = queue.splice(0, MAX_GROUP);
      const retry: QueuedWrite[] = [];
      await commitGroup(group, retry);
      if (retry.length > 0) {
        // A writer elsewhere got in between (or the group had to end early): again, first in line.
        const attempt = Math.max(...retry.map((w) => w.attempt));
        if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, backoffDelay(CONFLICT_BACKOFF, attempt)));
        queues.get(target)?.unshift(...retry) ?? queues.set(target, retry);
      }
    }
  };

  const run = ((target: string | undefined, plan: () => Promise<PlannedCommit>) =>
    target === undefined ? attempts(plan) : lock.run(target, () => attempts(plan))) as CommitRunner;
  run.batched = (target, plan) =>
    new Promise<ChangeEvent>((resolve, reject) => {
      const queue = queues.get(target);
      const write: QueuedWrite = { plan, attempt: 1, resolve, reject };
      if (queue) {
        queue.push(write);
        return;
      }
      queues.set(target, [write]);
      void lock.run(target, () => drain(target));
    });
  run.many = async (commits) => {
    const results = await repository.commitBatch(commits);
    for (let i = 0; i < commits.length; i++) await settle(commits[i]!, results[i]!);
    return results;
  };
  return run;
}

/** Events carry the new state when it is small; large payloads are left out (subscribers query). */
export function eventDraft(
  draft: Omit<ChangeEventDraft, "payload" | "payloadOmitted" | "time">,
  payload: unknown,
  time: Date,
  /** The payload's JSON length when the caller has its JSON already (saves stringifying it again). */
  payloadJsonLength?: number,
): ChangeEventDraft {
  const event: ChangeEventDraft = { ...draft, time: time.toISOString() };
  if (payload === undefined) return event;
  const size = payloadJsonLength ?? JSON.stringify(payload).length;
  if (size <= MAX_EVENT_PAYLOAD_BYTES) event.payload = payload;
  else event.payloadOmitted = true;
  return event;
}
