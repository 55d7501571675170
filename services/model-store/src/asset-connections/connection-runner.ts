import { type BackoffPolicy, backoffDelay, type ElementJson, type ProviderTarget } from "@twinport/shared";
import type {
  AssetConnectionDriver,
  AssetReading,
  Log,
  ReadSource,
  SubscriptionProviderRuntime,
  ValueProviderRuntime,
} from "./asset-connection-types.ts";
import type { ConnectionLease } from "./connection-lease.ts";
import { DeliverySlots } from "./delivery-slots.ts";
import { type ElementSync, targetKey } from "./element-sync.ts";

/**
 * standby: another replica holds the lease (operations still work here);
 * connecting → connected; waiting-to-retry: the asset could not be reached, the next attempt is
 * scheduled (`nextAttemptAt`); stopped: for good.
 */
export type ConnectionState = "standby" | "connecting" | "connected" | "waiting-to-retry" | "stopped";

export interface ProviderProblem {
  kind: "value" | "subscription";
  submodelId: string;
  idShortPath: string;
  error: string;
}

export interface AssetConnectionStatus {
  name: string;
  kind: "http" | "opcua" | "mqtt";
  endpoint: string;
  state: ConnectionState;
  /** This process holds the connection's lease, so it reads and writes the asset's values. */
  leaseHeld: boolean;
  /** When the state last changed (ISO 8601). */
  since: string;
  lastError?: string;
  nextAttemptAt?: string;
  providers: { value: number; subscription: number; operation: number };
  /** Providers whose last read failed (an unreachable URL, a missing node, a value that does not fit). */
  failingProviders: ProviderProblem[];
}

export interface ConnectionRunnerOptions {
  name: string;
  driver: AssetConnectionDriver;
  values: ValueProviderRuntime[];
  subscriptions: SubscriptionProviderRuntime[];
  operationCount: number;
  sync: ElementSync;
  lease: ConnectionLease;
  retryIntervalMs: number;
  log: Log;
  /**
   * With a forwarded position on the lease: forwards what was committed after the saved position to
   * the asset (through `modelChanged`, in the order of the model's changes) and calls `caughtUp`
   * with the last seq it covered, before this runner reads the asset (model-changes.ts).
   */
  catchUp?: (epoch: number) => Promise<void>;
  /** The seq up to which every change event has been handed to the runners (asset-connection-manager.ts). */
  processedUpTo?: () => number;
}

/**
 * Pushed readings of one connection written into the model at once. Enough for the store to batch
 * its Redis round trips (each commit needs several, and under load each waits for CPU); few enough
 * that readings do not queue inside the process: bench/asset-ingest at 5,000 values/s offered to
 * 1,000 MQTT providers, 4 rounds each, lag p50/p99 publish → OPC UA 0.27–0.37 s / 0.58–1.54 s with
 * 256 slots against 1.1–3.2 s / 1.6–5.3 s unlimited, at about the same committed rate; 64 slots
 * lost half the rate on a loaded machine.
 */
export const PUSH_DELIVERY_SLOTS = 256;

/**
 * A back-off that doubles from the retry interval up to ten times it. No jitter: one runner per
 * connection, and the status reports the next attempt's time.
 */
function connectBackoff(retryIntervalMs: number): BackoffPolicy {
  return { baseMs: retryIntervalMs, capMs: retryIntervalMs * 10, jitter: "none" };
}

interface Source {
  kind: "value" | "subscription";
  target: ProviderTarget;
  read: ReadSource;
  problem?: string;
  stopPush?: () => Promise<void>;
  /** Failed starts (or ends) of a push source since it last delivered: its back-off's attempt. */
  restarts: number;
  /** When a push source that could not start, or ended, is started again (ms since the epoch). */
  restartAt: number;
}

/**
 * Runs one (merged) asset connection in this process: keeps its lease, and while it holds it,
 * connects with retries and back-off, runs the reading sources (polls and pushes) and forwards model
 * changes to the asset. Nothing here ever blocks start-up: `start` returns at once.
 */
/** How long the read after a refused write may take (the driver's own read timeout is usually shorter). */
const REFRESH_TIMEOUT_MS = 30_000;

export class ConnectionRunner {
  private state: ConnectionState = "standby";
  private since = new Date();
  private lastError?: string;
  private nextAttemptAt?: Date;
  private leaseHeld = false;
  private leaseValidUntil = 0;
  private stopped = false;
  /** Bumped on each activation; loops of an older one end. */
  private epoch = 0;
  private activeAbort?: AbortController;
  private keeperTimer?: NodeJS.Timeout;
  private keeping: Promise<void> = Promise.resolve();
  private running: Promise<void> = Promise.resolve();
  private readonly sources: Source[];
  /** Value providers by element (their `write` is absent when readWriteMode forbids writing). */
  private readonly writers = new Map<string, ValueProviderRuntime>();
  private readonly log: Log;
  private readonly slots = new DeliverySlots(PUSH_DELIVERY_SLOTS);
  /** Changes up to this seq were forwarded after the lease was taken; undefined until then (and on standby). */
  private caughtUpTo?: number;
  /** Per written element, the seq of the oldest change not yet written to the asset (or refused by it). */
  private readonly unsettled = new Map<string, number>();
  /** Per written element, `modelChanged` calls not finished yet. */
  private readonly inFlight = new Map<string, number>();
  /** Last forwarded position this holder saved. */
  private savedUpTo = -1;
  private saving?: Promise<void>;
  private saveAgain = false;

  constructor(private readonly options: ConnectionRunnerOptions) {
    this.log = options.log;
    this.sources = [
      ...options.values
        .filter((v) => v.read)
        .map((v) => ({ kind: "value" as const, target: v.target, read: v.read!, restarts: 0, restartAt: 0 })),
      ...options.subscriptions.map((s) => ({
        kind: "subscription" as const,
        target: s.target,
        read: s.read,
        restarts: 0,
        restartAt: 0,
      })),
    ];
    for (const value of options.values) this.writers.set(targetKey(value.target), value);
    options.driver.onLost((reason) => this.lost?.(reason));
  }

  start(): void {
    this.keeping = this.keepLease();
  }

  status(): AssetConnectionStatus {
    return {
      name: this.options.name,
      kind: this.options.driver.kind,
      endpoint: this.options.driver.endpoint,
      state: this.state,
      leaseHeld: this.leaseHeld,
      since: this.since.toISOString(),
      ...(this.lastError ? { lastError: this.lastError } : {}),
      ...(this.state === "waiting-to-retry" && this.nextAttemptAt
        ? { nextAttemptAt: this.nextAttemptAt.toISOString() }
        : {}),
      providers: {
        value: this.options.values.length,
        subscription: this.options.subscriptions.length,
        operation: this.options.operationCount,
      },
      failingProviders: this.sources
        .filter((s) => s.problem !== undefined)
        .map((s) => ({
          kind: s.kind,
          submodelId: s.target.submodelId,
          idShortPath: s.target.idShortPath,
          error: s.problem!,
        })),
    };
  }

  /** The elements this connection reads or writes (model changes of these concern it). */
  targets(): ProviderTarget[] {
    const all = new Map<string, ProviderTarget>();
    for (const provider of this.writers.values()) all.set(targetKey(provider.target), provider.target);
    for (const source of this.sources) all.set(targetKey(source.target), source.target);
    return [...all.values()];
  }

  /** The elements whose value providers write to the asset. */
  writtenTargets(): ProviderTarget[] {
    return [...this.writers.values()].filter((provider) => provider.write).map((provider) => provider.target);
  }

  /**
   * Whether the change event with this seq is for this runner to forward: it runs the connection
   * and the catch-up after taking the lease did not cover it already.
   */
  accepts(seq: number): boolean {
    if (!this.leaseHeld || this.stopped) return false;
    if (!this.options.lease.forwarded) return true;
    return this.caughtUpTo !== undefined && seq > this.caughtUpTo;
  }

  /** The catch-up of activation `epoch` forwarded every change up to `seq`. */
  caughtUp(epoch: number, seq: number): void {
    if (this.epoch === epoch && this.leaseHeld) this.caughtUpTo = seq;
  }

  /**
   * An endpoint changed the element (in the change event `seq`). With a value provider that writes,
   * the value goes to the asset (if this process runs the connection); otherwise the model now
   * differs from the asset and the element is read again, so it shows the asset's value.
   */
  async modelChanged(target: ProviderTarget, element: ElementJson | undefined, seq?: number): Promise<void> {
    if (!this.leaseHeld || this.stopped) return;
    const key = targetKey(target);
    const write = element ? this.writers.get(key)?.write : undefined;
    // Recorded before the first await: the forwarded position must not pass this seq until it is settled.
    const tracked = seq !== undefined && write !== undefined;
    if (tracked) {
      if (!this.unsettled.has(key)) this.unsettled.set(key, seq);
      this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    }
    try {
      const outcome = await this.options.sync.modelChanged(target, element, write);
      if (outcome === "refused") await this.refresh(target);
    } catch (error) {
      this.log(`not written to the asset: ${target.submodelId} ${target.idShortPath}: ${(error as Error).message}`);
    } finally {
      if (tracked) {
        this.inFlight.set(key, (this.inFlight.get(key) ?? 1) - 1);
        this.saveSoon();
      }
    }
  }

  /**
   * Saves the forwarded position once a write settled, not only at the next renewal: a successor
   * taking over in between would write the same value to the asset again (an MQTT device would get
   * the message twice). One save in flight at a time; writes settling meanwhile share the next one.
   */
  private saveSoon(): void {
    if (!this.options.lease.forwarded) return;
    if (this.saving) {
      this.saveAgain = true;
      return;
    }
    this.saving = (async () => {
      do {
        this.saveAgain = false;
        await this.saveForwarded();
      } while (this.saveAgain && this.leaseHeld && !this.stopped);
    })().finally(() => {
      this.saving = undefined;
    });
  }

  /**
   * The seq up to which every change of a written element has reached the asset (or was refused):
   * what a successor need not forward again. An element whose write still waits (asset away) holds
   * it back at that write's seq.
   */
  private forwardedUpTo(): number | undefined {
    if (this.caughtUpTo === undefined) return undefined;
    let upTo = Math.max(this.caughtUpTo, this.options.processedUpTo?.() ?? 0);
    for (const [key, seq] of this.unsettled) {
      const target = this.writers.get(key)!.target;
      if (!this.inFlight.get(key) && !this.options.sync.hasPending(target)) this.unsettled.delete(key);
      else upTo = Math.min(upTo, seq - 1);
    }
    return upTo;
  }

  private async saveForwarded(): Promise<void> {
    const forwarded = this.options.lease.forwarded;
    const upTo = this.forwardedUpTo();
    if (!forwarded || upTo === undefined || upTo <= this.savedUpTo) return;
    try {
      if (await forwarded.save(upTo)) this.savedUpTo = upTo;
    } catch {
      // The next renewal saves again; a successor meanwhile forwards a little more than needed.
    }
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.keeperTimer);
    await this.keeping.catch(() => undefined);
    // Saved while the lease is still ours, so the next holder does not write the same values again.
    if (this.leaseHeld) await this.saveForwarded();
    await this.deactivate("stopped");
    await this.options.lease.release().catch(() => undefined);
    await this.options.driver.close().catch(() => undefined);
    this.setState("stopped");
  }

  private setState(state: ConnectionState, error?: string): void {
    if (state !== this.state) this.since = new Date();
    this.state = state;
    if (error !== undefined) this.lastError = error;
  }

  // ---- lease

  private async keepLease(): Promise<void> {
    const { lease } = this.options;
    const sentAt = Date.now();
    try {
      const held = await lease.acquire();
      if (this.stopped) return;
      if (held) {
        this.leaseValidUntil = sentAt + lease.ttlMs;
        if (!this.leaseHeld) {
          this.leaseHeld = true;
          if (Number.isFinite(lease.ttlMs)) this.log("holds the lease: runs the connection in this process");
          this.activate();
        } else {
          await this.saveForwarded();
        }
      } else if (this.leaseHeld) {
        this.log("lost the lease to another process: stops reading and writing the asset here");
        await this.deactivate("standby");
      }
    } catch (error) {
      // Keep what we had: it runs out by itself if the store stays away.
      if (this.leaseHeld && Date.now() > this.leaseValidUntil) {
        this.log(`cannot renew the lease (${(error as Error).message}): stops here until it can`);
        await this.deactivate("standby");
      }
    }
    if (this.stopped || !Number.isFinite(lease.ttlMs)) return;
    this.keeperTimer = setTimeout(
      () => {
        this.keeping = this.keepLease();
      },
      Math.max(10, Math.floor(lease.ttlMs / 3)),
    );
  }

  // ---- running the connection while the lease is ours

  private lost?: (reason: string) => void;

  private activate(): void {
    const epoch = ++this.epoch;
    const abort = new AbortController();
    this.activeAbort = abort;
    this.running = this.run(epoch, abort.signal).catch((error: unknown) =>
      this.log(`stopped by an unexpected error: ${(error as Error).stack ?? String(error)}`),
    );
  }

  private async deactivate(state: "standby" | "stopped"): Promise<void> {
    this.leaseHeld = false;
    this.caughtUpTo = undefined;
    this.unsettled.clear();
    this.inFlight.clear();
    this.savedUpTo = -1;
    this.epoch++;
    this.activeAbort?.abort();
    await this.running;
    this.options.sync.forget(this.sources.map((s) => s.target));
    if (state === "standby") this.setState("standby");
  }

  private async run(epoch: number, signal: AbortSignal): Promise<void> {
    const { driver, retryIntervalMs } = this.options;
    // The catch-up runs once the first session is up, before the first reading (a reading would
    // overwrite a client's write the asset has not got yet): its writes then go out on that session
    // instead of failing once against a driver that has none yet (an MQTT publish, an OPC UA write).
    // Live events are not forwarded until it ran, and it covers everything committed until then.
    let caughtUp = false;
    let attempt = 0;
    let lastLogged: string | undefined;
    while (this.epoch === epoch && !signal.aborted) {
      this.setState("connecting");
      try {
        await driver.connect();
      } catch (error) {
        const message = (error as Error).message;
        const delay = backoffDelay(connectBackoff(retryIntervalMs), attempt++);
        this.nextAttemptAt = new Date(Date.now() + delay);
        this.setState("waiting-to-retry", message);
        if (message !== lastLogged)
          this.log(
            `cannot connect to ${driver.endpoint}: ${message} (retrying, first in ${delay} ms, then with back-off)`,
          );
        lastLogged = message;
        await pause(delay, signal);
        continue;
      }
      if (this.epoch !== epoch || signal.aborted) {
        // Stopped or lost the lease while connecting: a session left open here would make a second
        // client of the asset (an MQTT broker drops one of two sessions with the same client id).
        await driver.disconnect().catch(() => undefined);
        break;
      }
      attempt = 0;
      lastLogged = undefined;
      this.lastError = undefined;
      this.setState("connected");
      // An HTTP "connection" is only a client: nothing has answered yet (issue 18.3).
      this.log(
        driver.connectsOnFirstRequest
          ? `configured ${driver.endpoint} (reported connected once a request to it succeeds)`
          : `connected to ${driver.endpoint}`,
      );
      let lostInCatchUp: string | undefined;
      if (!caughtUp) {
        // A session lost while the catch-up runs (retried while the store is away) is reconnected.
        this.lost = (reason) => {
          lostInCatchUp ??= reason;
        };
        caughtUp = await this.catchUp(epoch, signal);
        this.lost = undefined;
        if (!caughtUp) {
          await driver.disconnect().catch(() => undefined);
          break;
        }
      }
      const reason = lostInCatchUp ?? (await this.whileConnected(epoch, signal));
      await driver.disconnect().catch(() => undefined);
      if (reason === undefined) break;
      this.setState("waiting-to-retry", reason);
      this.nextAttemptAt = new Date(Date.now() + retryIntervalMs);
      this.log(`connection to ${driver.endpoint} lost: ${reason} (reconnecting)`);
      await pause(retryIntervalMs, signal);
    }
  }

  /**
   * Forwards what was committed since the saved forwarded position (while no replica held the lease,
   * or before the previous holder got to it), retried at the connect pace until it succeeds: reading
   * the asset without it could lose those writes. False when the activation ended meanwhile.
   */
  private async catchUp(epoch: number, signal: AbortSignal): Promise<boolean> {
    const { catchUp, lease, retryIntervalMs } = this.options;
    if (!catchUp || !lease.forwarded) return true;
    let attempt = 0;
    let lastLogged: string | undefined;
    while (this.epoch === epoch && !signal.aborted) {
      try {
        await catchUp(epoch);
        return this.epoch === epoch && !signal.aborted;
      } catch (error) {
        const message = (error as Error).message;
        if (message !== lastLogged)
          this.log(`cannot forward the changes made before this process took the lease: ${message} (retrying)`);
        lastLogged = message;
        await pause(backoffDelay(connectBackoff(retryIntervalMs), attempt++), signal);
      }
    }
    return false;
  }

  /** Runs the sources until the connection is lost (its reason) or the run ends (undefined). */
  private async whileConnected(epoch: number, signal: AbortSignal): Promise<string | undefined> {
    const connection = new AbortController();
    const stop = () => connection.abort();
    signal.addEventListener("abort", stop, { once: true });
    let lostReason: string | undefined;
    this.lost = (reason) => {
      lostReason ??= reason;
      connection.abort();
    };
    const polls = this.sources.filter((s) => s.read.mode === "poll").map((s) => this.poll(s, connection.signal));
    const pushes = this.sources.filter((s) => s.read.mode === "push");
    for (const source of pushes) {
      source.restarts = 0;
      source.restartAt = 0;
    }
    // Pushes that could not start or ended (a missing node) are started again when their back-off
    // allows; waiting writes are retried on each tick.
    const targets = this.writtenTargets();
    while (!connection.signal.aborted && this.epoch === epoch) {
      for (const source of pushes)
        if (!source.stopPush && Date.now() >= source.restartAt) await this.startPush(source, connection.signal);
      const waiting = targets.some((target) => this.options.sync.hasPending(target));
      await this.options.sync.retryPending(targets);
      if (waiting) this.saveSoon();
      await pause(this.options.retryIntervalMs, connection.signal);
    }
    this.lost = undefined;
    signal.removeEventListener("abort", stop);
    await Promise.all(polls);
    for (const source of pushes) {
      await source.stopPush?.().catch(() => undefined);
      source.stopPush = undefined;
    }
    return lostReason;
  }

  /**
   * Reads the element's asset value once more, for sources that would not send it by themselves:
   * a monitored item reports changes of the device, not that the model moved away from it. Polls
   * need nothing: their next reading is compared with the model again anyway.
   */
  private async refresh(target: ProviderTarget): Promise<void> {
    for (const source of this.sources) {
      if (targetKey(source.target) !== targetKey(target)) continue;
      const read = source.read;
      // A polled source is read once now too: with readInterval 0 nothing else would ever read it,
      // and a value the asset refused stayed in the model for good.
      if (read.mode === "push" && !read.readOnce) continue;
      try {
        const stamp = this.options.sync.stamp(target);
        const reading =
          read.mode === "push" ? await read.readOnce!() : await read.read(AbortSignal.timeout(REFRESH_TIMEOUT_MS));
        await this.deliver(source, reading, stamp);
      } catch (error) {
        this.problem(source, error);
      }
    }
  }

  private problem(source: Source, error: unknown): void {
    const message = (error as Error).message ?? String(error);
    if (source.problem !== message)
      this.log(`${source.kind} provider of ${source.target.submodelId} ${source.target.idShortPath}: ${message}`);
    source.problem = message;
  }

  private recovered(source: Source): void {
    source.restarts = 0;
    if (source.problem !== undefined)
      this.log(`${source.kind} provider of ${source.target.submodelId} ${source.target.idShortPath} works again`);
    source.problem = undefined;
  }

  private async deliver(source: Source, reading: AssetReading, stamp: number): Promise<void> {
    const outcome = await this.options.sync.apply(source.target, source.kind, reading, stamp);
    if (outcome === "missing") throw new Error("the element does not exist in the model");
  }

  private async poll(source: Source, signal: AbortSignal): Promise<void> {
    if (source.read.mode !== "poll") return;
    const { intervalMs } = source.read;
    let failures = 0;
    while (!signal.aborted) {
      const started = Date.now();
      let ok = false;
      try {
        const stamp = this.options.sync.stamp(source.target);
        const reading = await source.read.read(signal);
        if (signal.aborted) return;
        await this.deliver(source, reading, stamp);
        this.recovered(source);
        ok = true;
      } catch (error) {
        if (signal.aborted) return;
        this.problem(source, error);
      }
      // Interval 0 reads once per connection; a failed read is tried again with the connection's
      // back-off (a node the device makes later, an asset that answers errors for a while).
      if (ok && intervalMs === 0) return;
      const period =
        intervalMs > 0 ? intervalMs : backoffDelay(connectBackoff(this.options.retryIntervalMs), failures++);
      await pause(Math.max(0, period - (Date.now() - started)), signal);
    }
  }

  /** After a failed start or an end: the next start waits for the back-off of the source's attempts so far. */
  private scheduleRestart(source: Source): void {
    source.restartAt = Date.now() + backoffDelay(connectBackoff(this.options.retryIntervalMs), source.restarts++);
  }

  private async startPush(source: Source, signal: AbortSignal): Promise<void> {
    if (source.read.mode !== "push") return;
    // Latest value wins: while one reading is being written into the model, a newer one replaces
    // any that waits. A device publishing faster than the store commits (MQTT telemetry) then
    // costs one waiting reading, not an ever-growing queue, and the model still ends at its last value.
    let waiting: { reading: AssetReading; stamp: number } | undefined;
    let delivering = false;
    const drain = async () => {
      delivering = true;
      while (waiting) {
        await this.slots.acquire();
        const { reading, stamp } = waiting;
        waiting = undefined;
        try {
          await this.deliver(source, reading, stamp);
          this.recovered(source);
        } catch (error) {
          this.problem(source, error);
        } finally {
          this.slots.release();
        }
      }
      delivering = false;
    };
    let stop: (() => Promise<void>) | undefined;
    let ended = false;
    // An ended source is stopped and forgotten, so the connection's tick starts it again once its
    // back-off allows (an end may come before `start` resolved: then it is stopped right after).
    const end = () => {
      if (source.stopPush === stop) source.stopPush = undefined;
      this.scheduleRestart(source);
      void stop?.().catch(() => undefined);
    };
    try {
      stop = await source.read.start({
        reading: (reading) => {
          if (ended) return;
          waiting = { reading, stamp: this.options.sync.stamp(source.target) };
          if (!delivering) void drain();
        },
        error: (error) => this.problem(source, error),
        ended: (error) => {
          if (ended || signal.aborted) return;
          ended = true;
          this.problem(source, error);
          if (stop) end();
        },
      });
    } catch (error) {
      this.problem(source, error);
      this.scheduleRestart(source);
      return;
    }
    if (ended) end();
    else source.stopPush = stop;
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
