import { echoed, jsonSurelyLongerThan } from "../aas/index.ts";
import { type ChangeEvent, type ChangeEventDraft, CommandError, MAX_EVENT_PAYLOAD_BYTES } from "../contracts/index.ts";
import { type BackoffPolicy, backoffDelay } from "./backoff.ts";
import { type BatchOverlay, createBatchOverlay } from "./batch-overlay.ts";
import { KeyedLock } from "./keyed-lock.ts";
import {
  batchIndexOf,
  batchRevision,
  type Commit,
  type CommitPrecondition,
  type CommitResult,
  type EventBus,
  type Repository,
} from "./ports/index.ts";
import { createRecordCache } from "./record-cache.ts";
import { submodelSemanticIdOf } from "./submodel-semantic-id.ts";

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

/** Writes planned together, committed in one `commitBatch`. */
interface Group {
  /** Every write taken from the queue, in order (to put back should the group be planned again). */
  writes: QueuedWrite[];
  items: { write: QueuedWrite; planned: PlannedCommit }[];
  /** Plans that threw while the group before was in flight: answered once it has committed. */
  refused: { write: QueuedWrite; error: unknown }[];
  overlay: BatchOverlay;
  /** The overlay index of its first commit: lower ones name the group in flight before it. */
  offset: number;
  /** It ends with a structure change: nothing more can be planned on top of it. */
  closed: boolean;
}

interface Flight {
  group: Group;
  /** Never rejects. */
  outcome: Promise<{ results: CommitResult[] } | { error: unknown }>;
}

const newGroup = (offset: number): Group => ({
  writes: [],
  items: [],
  refused: [],
  overlay: createBatchOverlay(),
  offset,
  closed: false,
});

const MAX_ATTEMPTS = 12;
/** Between conflict retries: a random pause below 2, 4, 8, … ms (at most 50), so racing writers do not collide again. */
const CONFLICT_BACKOFF: BackoffPolicy = { baseMs: 1, capMs: 50, jitter: "full" };

function defaultFailure(precondition: CommitPrecondition): CommandError | "retry" {
  if (precondition.on === "id-free") {
    return new CommandError("conflict", `An identifiable with id '${echoed(precondition.id)}' already exists`);
  }
  // The engine's idempotency wrapper answers this one itself (idempotency.ts); this is the fallback.
  if (precondition.on === "idempotency-key-free")
    return new CommandError("conflict", "A request with this Idempotency-Key is being processed");
  if (precondition.revision === null) {
    const what =
      precondition.on === "element"
        ? `A submodel element at '${echoed(precondition.path)}'`
        : `An identifiable with id '${echoed(precondition.id)}'`;
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
  /** Wakes a target's drain that waits for its group in flight: more writes to plan. */
  const wakers = new Map<string, () => void>();
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
  /** Plans the target's queued writes into `next`, on top of the group in flight (if any). */
  const planInto = async (next: Group, queue: QueuedWrite[], flight: Group | undefined): Promise<void> => {
    while (!next.closed && queue.length > 0 && next.writes.length < MAX_GROUP) {
      const write = queue.shift()!;
      next.writes.push(write);
      const over = (base: Repository) => next.overlay.over(flight ? flight.overlay.over(base) : base);
      try {
        let plan: PlannedCommit;
        const view = cache?.view(repository);
        try {
          plan = await write.plan(over(view?.reads ?? repository));
        } catch (error) {
          if (!view?.usedCache()) throw error;
          // Planned on a cached record that may be stale (another replica wrote): plan it fresh.
          view.forget();
          plan = await write.plan(over(repository));
        }
        // Structure changes: later plans could not read it through the overlay, so they wait.
        if (!next.overlay.add(plan.commit, next.offset + next.items.length)) next.closed = true;
        next.items.push({ write, planned: plan });
      } catch (error) {
        // On top of a group in flight, a refusal (If-Match, not found) holds only once that group
        // has committed: should it fail, the write is planned again.
        if (flight) next.refused.push({ write, error });
        else write.reject(error);
      }
    }
  };

  /** Hands `group` to the repository; its placeholders naming `before` (committed) become seqs. */
  const send = (group: Group, before?: { group: Group; results: CommitResult[] }): Flight => {
    for (const item of group.items) {
      const commit = item.planned.commit;
      if (!commit.preconditions.some((p) => "revision" in p && batchIndexOf(p.revision) !== undefined)) continue;
      const preconditions = commit.preconditions.map((p) => {
        const index = "revision" in p ? batchIndexOf(p.revision) : undefined;
        if (index === undefined) return p;
        if (index >= group.offset) return { ...p, revision: batchRevision(index - group.offset) };
        const result = before?.results[index - before.group.offset];
        // Only sent once every commit before it succeeded; anything else must never match (0).
        return { ...p, revision: result?.ok && index >= before!.group.offset ? result.seq : 0 };
      });
      item.planned = { ...item.planned, commit: { ...commit, preconditions } };
    }
    const commits = group.items.map((i) => i.planned.commit);
    const outcome = repository.commitBatch(commits).then(
      (results) => ({ results }),
      (error: unknown) => ({ error }),
    );
    return { group, outcome };
  };

  /** Settles a group's commits; the writes to plan again (a writer elsewhere got in between) go to `retry`. */
  const settleGroup = async (group: Group, results: CommitResult[], retry: QueuedWrite[]): Promise<void> => {
    for (let i = 0; i < group.items.length; i++) {
      const { write, planned: plan } = group.items[i]!;
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

  /**
   * Runs under the target's lock until its queue is empty. While one group's commitBatch is on its
   * way, the writes that arrive are planned into the next group on top of it (its records through
   * its overlay, its revisions as placeholders); the moment it comes back committed, the next group
   * is sent with those placeholders replaced by the seqs it got, and only then is it settled. So
   * Redis works on one group while this process answers the one before and plans the one after;
   * should any commit of the group in flight fail, the next group is not sent but planned again.
   */
  const drain = async (target: string): Promise<void> => {
    let flight: Flight | undefined;
    let next = newGroup(0);
    for (;;) {
      const queue = queues.get(target) ?? [];
      if (!flight?.group.closed) await planInto(next, queue, flight?.group);
      if (!flight) {
        if (next.items.length > 0) {
          flight = send(next);
          next = newGroup(next.offset + next.items.length);
          continue;
        }
        next = newGroup(0);
        if (queue.length === 0) {
          queues.delete(target);
          return;
        }
        continue;
      }
      // Wait for the group in flight, or for more writes to plan meanwhile.
      const arrived = new Promise<undefined>((resolve) => wakers.set(target, () => resolve(undefined)));
      const outcome = await Promise.race([flight.outcome, arrived]);
      wakers.delete(target);
      if (outcome === undefined) continue;
      const done = flight.group;
      flight = undefined;
      if ("error" in outcome) {
        for (const item of done.items) item.write.reject(outcome.error);
        // Planned on top of an outcome nobody knows: planned again.
        queue.unshift(...next.writes);
        queues.set(target, queue);
        next = newGroup(0);
        continue;
      }
      const results = outcome.results;
      const committed = results.every((r) => r.ok);
      if (committed) {
        for (const { write, error } of next.refused) write.reject(error);
        if (next.items.length > 0) {
          flight = send(next, { group: done, results });
          // The next group leaves first (the commit queue sends at the end of this turn), then this
          // one is answered while Redis works on it.
          await new Promise((resolve) => setImmediate(resolve));
        }
        next = newGroup(flight ? flight.group.offset + flight.group.items.length : 0);
      }
      const retry: QueuedWrite[] = [];
      await settleGroup(done, results, retry);
      if (!committed) {
        // A writer elsewhere got in between: the failed ones again, first in line, then the next group's.
        queue.unshift(...retry, ...next.writes);
        queues.set(target, queue);
        next = newGroup(0);
        const attempt = Math.max(0, ...retry.map((w) => w.attempt));
        if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, backoffDelay(CONFLICT_BACKOFF, attempt)));
      }
    }
  };

  const run = ((target: string | undefined, plan: () => Promise<PlannedCommit>) =>
    target === undefined ? attempts(plan) : lock.run(target, () => attempts(plan))) as CommitRunner;
  // Where a commit costs no I/O there is no round trip or fsync to share: each write is planned and
  // committed on its own, one at a time per target (the lock keeps arrival order). Grouping there
  // only added turns between the commit and the answer (ADR 0054).
  if (repository.commitsInProcess) run.batched = (target, plan) => run(target, () => plan(repository));
  else
    run.batched = (target, plan) =>
      new Promise<ChangeEvent>((resolve, reject) => {
        const queue = queues.get(target);
        const write: QueuedWrite = { plan, attempt: 1, resolve, reject };
        if (queue) {
          queue.push(write);
          wakers.get(target)?.();
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
  // Kept beside the payload, which may be left out here or later (the memory log's older events).
  if (draft.kind.startsWith("submodel.")) event.submodelSemanticId = submodelSemanticIdOf(payload);
  const size =
    payloadJsonLength ??
    (jsonSurelyLongerThan(payload, MAX_EVENT_PAYLOAD_BYTES)
      ? Number.POSITIVE_INFINITY
      : JSON.stringify(payload).length);
  if (size <= MAX_EVENT_PAYLOAD_BYTES) event.payload = payload;
  else event.payloadOmitted = true;
  return event;
}
