import type { EngineContext } from "../engine-context.ts";
import {
  type PackageIntent,
  pendingPackageIds,
  readPackageBeat,
  readPackageIntent,
  writePackageBeat,
} from "./package-intents.ts";
import { type RollbackOutcome, rollBackPackageWrite } from "./package-rollback.ts";

type PackageWritten = readonly { kind: import("../ports/index.ts").IdentifiableKind; id: string }[];

/**
 * How long a package write's heartbeat may stand still before its intent is taken for a dead
 * write's and rolled back. A live write beats every quarter of this, from a timer, whatever it is
 * doing (reading, placing files, waiting for a batch), so only a process that stopped or lost its
 * store for this long misses it. Two minutes is a package command's whole budget (LONG_REQUEST_MS
 * at the gateway; past it the engine commits nothing more for the write, docs/adr/0017) and far
 * longer than a Redis restart or failover, so a write that is merely slow, or waits out a short
 * outage, is not rolled back under itself; and short enough that a client repeating the POST after
 * a crash finds the way clear within a few minutes.
 */
export const PACKAGE_INTENT_STALE_MS = 120_000;

/**
 * The package writes of this process, and the sweep that rolls back those that died elsewhere
 * (package-intents.ts). Whether a write is alive is judged without comparing clocks across
 * machines (docs/adr/0017): a sweeper notes each intent's heartbeat value and when it saw it, on
 * its own clock, and rolls back the intent whose heartbeat has not changed for the bound. A
 * process that starts sees every intent for the first time: it rolls back a dead write's content
 * one bound after its start. Every replica sweeps; two rolling back one intent do no harm
 * (package-rollback.ts).
 */
export class StalePackageIntents {
  private readonly running = new Set<string>();
  /**
   * Writes of this process that failed and whose own rollback failed too (the store away): what
   * they know they committed, by writeId. The sweep takes that back at once, without waiting for a
   * heartbeat to stand still, including a batch whose claims did not follow its commit.
   */
  private readonly failedHere = new Map<string, { written: PackageWritten; taken: ReadonlySet<string> }>();
  private readonly seen = new Map<string, { beat: string; since: number }>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private sweeping: Promise<void> | undefined;
  private ctx: EngineContext | undefined;

  constructor(
    readonly staleMs: number = PACKAGE_INTENT_STALE_MS,
    /**
     * Told of each intent a sweep settled: the bulk removal of a dead write's content (or the rest
     * of a dead DELETE's) left no trace in any log (a black-box finding), where an operator would
     * look for why data went.
     */
    private readonly onSettled?: (report: PackageSweepReport) => void,
  ) {}

  /**
   * At most how long after a write stopped a sweep takes its content back (before the rollback's own
   * time): its last beat may lie a quarter bound back, a sweeper may note it a half bound late, and
   * it must then stand still a bound, checked every half bound.
   */
  get rollbackWithinMs(): number {
    return this.staleMs * 2.25;
  }

  /** Sweeps now (noting what is there) and every half bound from then on. */
  start(ctx: EngineContext): void {
    this.ctx = ctx;
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), Math.max(50, Math.floor(this.staleMs / 2)));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * A write of this process begins: it beats until `end`. The sweep of this process never takes
   * it for dead; the others see its heartbeat change.
   */
  begin(packageId: string, writeId: string, ctx: EngineContext): { end(): void } {
    this.running.add(packageId);
    let beats = 0;
    // A failed beat (the store away) is simply missed: the next one, or the write's end, follows.
    const timer = setInterval(
      () => void writePackageBeat(ctx.fileStore, packageId, `${writeId}:${++beats}`).catch(() => undefined),
      Math.max(10, Math.floor(this.staleMs / 4)),
    );
    timer.unref();
    return {
      end: () => {
        clearInterval(timer);
        this.running.delete(packageId);
      },
    };
  }

  /** A write of this process failed and could not roll itself back: the sweep does, knowing `written`. */
  failed(writeId: string, written: PackageWritten, taken: ReadonlySet<string>): void {
    this.failedHere.set(writeId, { written: [...written], taken });
    // Sooner than the next round: the store may answer again at any moment.
    const retry = setTimeout(() => void this.sweep(), Math.max(50, Math.floor(this.staleMs / 8)));
    retry.unref();
  }

  /** One sweep at a time; a call while one runs waits for it. Failures wait for the next sweep. */
  sweep(): Promise<void> {
    this.sweeping ??= this.sweepOnce()
      .catch(() => undefined)
      .finally(() => {
        this.sweeping = undefined;
      });
    return this.sweeping;
  }

  private async sweepOnce(): Promise<void> {
    const ctx = this.ctx;
    if (ctx === undefined) return;
    const pending = await pendingPackageIds(ctx.fileStore);
    for (const packageId of this.seen.keys()) if (!pending.includes(packageId)) this.seen.delete(packageId);
    // A failed write of this process whose intent is gone (rolled back by another replica) is done.
    const stillPending = new Set<string>();
    for (const packageId of pending) {
      const intent = await readPackageIntent(ctx.fileStore, packageId);
      if (intent === undefined) continue;
      stillPending.add(intent.writeId);
      if (this.running.has(packageId)) continue;
      const own = this.failedHere.get(intent.writeId);
      if (own !== undefined) {
        try {
          const outcome = await rollBackPackageWrite(ctx, intent, own.taken, own.written);
          this.onSettled?.(reportOf(intent, outcome, "failed here"));
          this.failedHere.delete(intent.writeId);
          this.seen.delete(packageId);
        } catch {
          // Still away: again at the next sweep.
          this.failed(intent.writeId, own.written, own.taken);
        }
        continue;
      }
      // Before its first beat, a write is known by its intent alone.
      const beat = (await readPackageBeat(ctx.fileStore, packageId)) ?? intent.writeId;
      const now = performance.now();
      const last = this.seen.get(packageId);
      if (last === undefined || last.beat !== beat) {
        this.seen.set(packageId, { beat, since: now });
        continue;
      }
      if (now - last.since < this.staleMs) continue;
      try {
        const outcome = await rollBackPackageWrite(ctx, intent);
        this.onSettled?.(reportOf(intent, outcome, "heartbeat stood still"));
        this.seen.delete(packageId);
      } catch {
        // The store is still away: the intent stays, and the next sweep tries again.
      }
    }
    for (const writeId of this.failedHere.keys()) if (!stillPending.has(writeId)) this.failedHere.delete(writeId);
  }
}

/** What a sweep did with one intent, for the process's log. */
export interface PackageSweepReport {
  packageId: string;
  writeId: string;
  /** A POST, a PUT (replaces, with identifiables), or a DELETE (replaces, none of its own). */
  write: "post" | "put" | "delete";
  /** "completed": the write had finished and only its intent was left; else its content went. */
  outcome: RollbackOutcome;
  why: "heartbeat stood still" | "failed here";
  correlationId?: string;
}

function reportOf(intent: PackageIntent, outcome: RollbackOutcome, why: PackageSweepReport["why"]): PackageSweepReport {
  // Intents written before `write` existed: a DELETE's is the one that replaces with nothing.
  const write = intent.write ?? (!intent.replaces ? "post" : intent.identifiables.length > 0 ? "put" : "delete");
  return {
    packageId: intent.packageId,
    writeId: intent.writeId,
    write,
    outcome,
    why,
    ...(intent.correlationId !== undefined ? { correlationId: intent.correlationId } : {}),
  };
}
