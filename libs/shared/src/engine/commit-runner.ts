import { CommandError, MAX_EVENT_PAYLOAD_BYTES, type ChangeEvent, type ChangeEventDraft } from "../contracts/index.ts";
import { KeyedLock } from "./keyed-lock.ts";
import type { Commit, CommitPrecondition, EventBus, Repository } from "./ports/index.ts";

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
 */
export type CommitRunner = (target: string | undefined, plan: () => Promise<PlannedCommit>) => Promise<ChangeEvent>;

const MAX_ATTEMPTS = 12;

function defaultFailure(precondition: CommitPrecondition): CommandError | "retry" {
  if (precondition.on === "id-free") {
    return new CommandError("conflict", `An identifiable with id '${precondition.id}' already exists`);
  }
  // The engine's idempotency wrapper answers this one itself (idempotency.ts); this is the fallback.
  if (precondition.on === "idempotency-key-free") return new CommandError("conflict", "A request with this Idempotency-Key is being processed");
  if (precondition.revision === null) {
    const what = precondition.on === "element" ? `A submodel element at '${precondition.path}'` : `An identifiable with id '${precondition.id}'`;
    return new CommandError("conflict", `${what} already exists`);
  }
  return "retry";
}

export function createCommitRunner(repository: Repository, bus: EventBus | undefined): CommitRunner {
  const lock = new KeyedLock();
  const attempts = async (plan: () => Promise<PlannedCommit>): Promise<ChangeEvent> => {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const planned = await plan();
      const result = await repository.commit(planned.commit);
      if (result.ok) {
        // Published after the commit, never before: subscribers only ever see committed state.
        if (bus) await bus.publish(result.event);
        return result.event;
      }
      const failed = planned.commit.preconditions[result.failed];
      const outcome = planned.onFailed?.(failed) ?? defaultFailure(failed);
      if (outcome !== "retry") throw outcome;
      // A writer in another process changed what we read: back off (jittered, growing), re-plan.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)));
    }
    throw new CommandError("conflict", "The target is being modified concurrently; please retry");
  };
  return (target, plan) => (target === undefined ? attempts(plan) : lock.run(target, () => attempts(plan)));
}

/** Events carry the new state when it is small; large payloads are left out (subscribers query). */
export function eventDraft(draft: Omit<ChangeEventDraft, "payload" | "payloadOmitted" | "time">, payload: unknown, time: Date): ChangeEventDraft {
  const event: ChangeEventDraft = { ...draft, time: time.toISOString() };
  if (payload === undefined) return event;
  const size = JSON.stringify(payload).length;
  if (size <= MAX_EVENT_PAYLOAD_BYTES) event.payload = payload;
  else event.payloadOmitted = true;
  return event;
}
