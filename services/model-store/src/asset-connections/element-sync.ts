import type { ElementJson, ProviderTarget } from "@twinport/shared";
import { AssetError, type AssetReading } from "./asset-connection-types.ts";
import { holdsValue, propertyBody, propertyLexical } from "./asset-value.ts";
import { type ModelPort, ModelWriteError } from "./model-port.ts";

export type ApplyOutcome = "applied" | "unchanged" | "stale" | "missing";
/** refused: the asset said no, the model now differs from it until the next reading. */
export type WriteOutcome = "written" | "unchanged" | "waiting" | "refused";

interface PendingWrite {
  body: string;
  element: ElementJson;
  write: (element: ElementJson) => Promise<void>;
}

interface TargetState {
  /** Bumped when a write to the asset starts: readings begun before it are stale. */
  generation: number;
  /** The value (as a ValueOnly body) that model and asset are known to share. */
  synced?: string;
  /** A write to the asset that has not succeeded yet; while it exists readings are not applied. */
  pending?: PendingWrite;
  /** Last reading key passed on, per source: a source passes on only changes. */
  lastKeys: Map<string, string>;
  /** Writes of one element go out in order. */
  queue: Promise<WriteOutcome>;
  /** For log lines on transitions only (a failing asset would otherwise log every poll). */
  failing: boolean;
  /**
   * A Property as the model holds it, as far as this process knows: from its last read of the
   * element or its own last write of it. A change made anywhere else drops it (`modelChanged`).
   * While it is known, a reading costs one commit (or nothing) instead of a read and a commit.
   */
  model?: { element: ElementJson; body: string };
  /** Bumped by every change from elsewhere: a read begun before it must not become `model`. */
  changes: number;
}

export function targetKey(target: ProviderTarget): string {
  return `${target.submodelId}\u0000${target.idShortPath}`;
}

/**
 * Keeps model and asset of each element in step, whichever connection reads or writes it (an
 * element may have a value provider in one connection and a subscription provider in another).
 *
 * Readings flow into the model as PATCH …/$value with origin "asset" — only when the value differs
 * from the model's, so an unchanged asset makes no event. Model changes made through an endpoint
 * flow to the asset; while such a write is in flight or waiting for a retry, readings of that
 * element are dropped, so an asset value read just before the write cannot undo the client's change.
 */
export class ElementSync {
  private readonly states = new Map<string, TargetState>();

  constructor(
    private readonly model: ModelPort,
    private readonly log: (line: string) => void,
  ) {}

  private state(target: ProviderTarget): TargetState {
    const key = targetKey(target);
    let state = this.states.get(key);
    if (!state) {
      state = { generation: 0, lastKeys: new Map(), queue: Promise.resolve("unchanged"), failing: false, changes: 0 };
      this.states.set(key, state);
    }
    return state;
  }

  /** Take before reading the asset; pass to `apply` with the result. */
  stamp(target: ProviderTarget): number {
    return this.state(target).generation;
  }

  async apply(target: ProviderTarget, source: string, reading: AssetReading, stamp: number): Promise<ApplyOutcome> {
    const state = this.state(target);
    if (state.generation !== stamp || state.pending) return "stale";
    if (state.lastKeys.get(source) === reading.key) return "unchanged";
    const known = state.model;
    if (known) return this.applyKnown(target, state, known, source, reading);
    const changes = state.changes;
    const element = await this.model.read(target);
    if (!element) return "missing";
    const body = reading.bodyFor(element);
    if (state.generation !== stamp || state.pending) return "stale";
    const changed = !holdsValue(element, body);
    if (changed) await this.model.patchValue(target, body);
    state.lastKeys.set(source, reading.key);
    state.synced = body;
    if (element.modelType === "Property" && state.changes === changes)
      state.model = { element, body: changed ? body : propertyBody(propertyLexical(element)) };
    return changed ? "applied" : "unchanged";
  }

  /**
   * `apply` for a Property whose model value this process knows: compared with that instead of a
   * fresh read (a Property's body is its lexical value as a JSON string, so equal bodies are equal
   * values). A failed write forgets it, so the next reading reads the element again.
   */
  private async applyKnown(
    target: ProviderTarget,
    state: TargetState,
    known: NonNullable<TargetState["model"]>,
    source: string,
    reading: AssetReading,
  ): Promise<ApplyOutcome> {
    const body = reading.bodyFor(known.element);
    const changed = body !== known.body;
    if (changed) {
      try {
        await this.model.patchValue(target, body);
      } catch (error) {
        if (state.model === known) state.model = undefined;
        if (error instanceof ModelWriteError && error.code === "not-found") return "missing";
        throw error;
      }
      if (state.model === known) state.model = { element: known.element, body };
    }
    state.lastKeys.set(source, reading.key);
    state.synced = body;
    return changed ? "applied" : "unchanged";
  }

  /**
   * The element changed through an endpoint. With a writer, the new value goes to the asset (unless
   * the asset has it already); either way the sources forget their last value, so the next reading
   * is compared with the model again. "refused" (also without a writer: a read-only element) tells
   * the caller the model now differs from the asset, so it reads the asset once more.
   */
  modelChanged(
    target: ProviderTarget,
    element: ElementJson | undefined,
    write?: (element: ElementJson) => Promise<void>,
  ): Promise<WriteOutcome> {
    const state = this.state(target);
    state.lastKeys.clear();
    state.model = undefined;
    state.changes++;
    if (!write || !element) return Promise.resolve("refused");
    const body = propertyBody(propertyLexical(element));
    if (state.synced === body && !state.pending) return Promise.resolve("unchanged");
    state.generation++;
    state.pending = { body, element, write };
    return this.flush(target);
  }

  /** Tries the waiting write of each target again (after the asset was unreachable). */
  async retryPending(targets: Iterable<ProviderTarget>): Promise<void> {
    for (const target of targets) if (this.state(target).pending) await this.flush(target);
  }

  hasPending(target: ProviderTarget): boolean {
    return this.state(target).pending !== undefined;
  }

  /** The connection stopped running these elements here: what it knew is no longer true. */
  forget(targets: Iterable<ProviderTarget>): void {
    for (const target of targets) this.states.delete(targetKey(target));
  }

  private flush(target: ProviderTarget): Promise<WriteOutcome> {
    const state = this.state(target);
    const run = async (): Promise<WriteOutcome> => {
      const pending = state.pending;
      if (!pending) return "unchanged";
      const where = `${target.submodelId} ${target.idShortPath}`;
      try {
        await pending.write(pending.element);
        // A reading taken while this write was on its way may have left the asset before the write
        // arrived: its value is older than the model's, and applying it once the write settled
        // undid the client's write (a new lease holder's catch-up write and its first read, ADR 0059).
        state.generation++;
        if (state.failing) this.log(`writing ${where} to the asset works again`);
        state.failing = false;
        if (state.pending === pending) {
          state.pending = undefined;
          state.synced = pending.body;
        }
        state.lastKeys.clear();
        return "written";
      } catch (error) {
        const retryable = !(error instanceof AssetError) || error.retryable;
        if (!state.failing || !retryable)
          this.log(`writing ${where} to the asset failed${retryable ? " (retried)" : ""}: ${(error as Error).message}`);
        state.failing = retryable;
        // A refusal will not change by asking again: drop it, and let the next reading show the asset's value.
        if (!retryable && state.pending === pending) state.pending = undefined;
        return retryable ? "waiting" : "refused";
      }
    };
    state.queue = state.queue.then(run);
    return state.queue;
  }
}
