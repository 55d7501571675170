import {
  type ChangeEvent,
  type EventBus,
  type EventSubscription,
  type Heartbeat,
  startProgress,
} from "@twinport/shared";
import { applyChange, applySnapshot, type MirrorTarget } from "./change-applier.ts";

export interface AddressSpaceSyncOptions {
  bus: EventBus;
  target: MirrorTarget;
  log(line: string): void;
  /**
   * How long an event may arrive out of order (a later seq first) before the gap counts as a
   * lost event and the address space resyncs; also the grace for a heartbeat ahead of us.
   */
  gapGraceMs?: number;
  /** Pause between attempts when the store cannot be read during a (re)sync. */
  retryMs?: number;
}

export interface AddressSpaceSync {
  /** The seq of the last event applied (or of the snapshot). */
  readonly appliedSeq: number;
  /** How many (re)syncs completed: 1 after start. */
  readonly syncCount: number;
  /** Resolves true once every event up to `seq` is applied; false after `timeoutMs`. */
  waitForSeq(seq: number, timeoutMs: number): Promise<boolean>;
  /** Read a fresh snapshot, patching the address space in place. */
  resync(reason: string): void;
  /**
   * Runs `task` between two events (never while one is applied or a snapshot is read), so what it
   * reads from the store and builds fits the events applied after it: how a lazy identifiable is
   * made or released (ADR 0036).
   */
  exclusive<T>(task: () => Promise<T> | T): Promise<T>;
  stop(): Promise<void>;
}

interface Waiter {
  seq: number;
  resolve(reached: boolean): void;
  timer: NodeJS.Timeout;
}

/**
 * Keeps the address space equal to the store (docs/architecture.md §4, §8): subscribe first and buffer,
 * read a snapshot stamped with the seq read before its first page, apply the buffered events
 * above that seq, then every event in seq order. A gap that does not fill within the grace
 * period, a heartbeat ahead of the last seq seen, a reconnect or an event that does not fit the
 * nodes all lead to a resync, which patches nodes in place.
 *
 * Resolves once the first snapshot is in the address space.
 */
export async function startAddressSpaceSync(options: AddressSpaceSyncOptions): Promise<AddressSpaceSync> {
  const { target, log } = options;
  const gapGraceMs = options.gapGraceMs ?? 250;
  const retryMs = options.retryMs ?? 1000;

  let appliedSeq = 0;
  /** Highest seq accepted into `queue` (contiguous from the snapshot). */
  let acceptedSeq = 0;
  let syncCount = 0;
  const queue: ChangeEvent[] = [];
  /** Events that arrived ahead of a missing seq. */
  const held = new Map<number, ChangeEvent>();
  /** While a snapshot is read, every event waits here. */
  let buffer: ChangeEvent[] | undefined = [];
  let resyncReason: string | undefined = "start";
  /** Set when the store's data was replaced (a new incarnation): the next snapshot sets the position. */
  let positionLost = false;
  let working: Promise<void> | undefined;
  let stopped = false;
  let gapTimer: NodeJS.Timeout | undefined;
  let heartbeatTimer: NodeJS.Timeout | undefined;
  const waiters: Waiter[] = [];
  const tasks: { run(): Promise<void>; cancel(): void }[] = [];

  const accept = (event: ChangeEvent) => {
    if (event.seq <= acceptedSeq) return; // a duplicate (delivery is at least once)
    if (event.seq > acceptedSeq + 1) {
      held.set(event.seq, event);
      gapTimer ??= setTimeout(() => {
        gapTimer = undefined;
        if (held.size > 0) requestResync(`events missing after seq ${acceptedSeq}`);
      }, gapGraceMs).unref();
      return;
    }
    queue.push(event);
    acceptedSeq = event.seq;
    for (let next = held.get(acceptedSeq + 1); next !== undefined; next = held.get(acceptedSeq + 1)) {
      held.delete(next.seq);
      queue.push(next);
      acceptedSeq = next.seq;
    }
    for (const seq of held.keys()) if (seq <= acceptedSeq) held.delete(seq);
  };

  const onEvent = (event: ChangeEvent) => {
    if (stopped) return;
    if (buffer !== undefined) {
      buffer.push(event);
      return;
    }
    accept(event);
    kick();
  };

  const onHeartbeat = (heartbeat: Heartbeat) => {
    if (stopped || buffer !== undefined || heartbeat.seq <= acceptedSeq || heartbeatTimer !== undefined) return;
    // A heartbeat may run ahead of events still on their way (ADR 0018); give a reordered event its grace.
    heartbeatTimer = setTimeout(() => {
      heartbeatTimer = undefined;
      if (heartbeat.seq > acceptedSeq && buffer === undefined)
        requestResync(`heartbeat at seq ${heartbeat.seq}, last event seen ${acceptedSeq}`);
    }, gapGraceMs).unref();
  };

  const requestResync = (reason: string) => {
    if (stopped) return;
    resyncReason ??= reason;
    kick();
  };

  const advance = (seq: number) => {
    if (seq <= appliedSeq) return;
    appliedSeq = seq;
    for (let i = waiters.length - 1; i >= 0; i--) {
      const waiter = waiters[i];
      if (waiter.seq <= appliedSeq) {
        waiters.splice(i, 1);
        clearTimeout(waiter.timer);
        waiter.resolve(true);
      }
    }
  };

  const resyncNow = async (reason: string) => {
    buffer ??= [];
    queue.length = 0;
    held.clear();
    if (syncCount > 0) log(`opcua-gateway: resync (${reason})`);
    for (;;) {
      try {
        // A large model takes a while: a line every few seconds, then the counts and the time.
        const building = syncCount === 0 ? "building" : "resyncing";
        const progress = startProgress((_fields, line) => log(line), {
          task: `opcua-gateway: ${building} the OPC UA address space`,
          finished: `opcua-gateway: address space ${syncCount === 0 ? "built" : "resynced"}`,
          unit: "shells, submodels and concept descriptions",
        });
        const report = await applySnapshot(target, progress);
        acceptedSeq = report.seq;
        // A new store incarnation counts from 1 again: the old position would swallow its events.
        if (positionLost) appliedSeq = Math.min(appliedSeq, report.seq);
        positionLost = false;
        advance(report.seq);
        // Elements get their nodes on first use (ADR 0036): only those in use were read in full.
        progress.finish(
          `${report.materialized} in use read in full, at seq ${report.seq} ` +
            `(store read ${Math.round(report.readMs)} ms, nodes ${Math.round(report.buildMs)} ms)`,
          report.identifiables,
        );
        break;
      } catch (error) {
        if (stopped) return;
        log(`opcua-gateway: reading the model failed, retrying: ${(error as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, retryMs));
        if (stopped) return;
      }
    }
    syncCount += 1;
    const buffered = buffer;
    buffer = undefined;
    for (const event of buffered) accept(event);
  };

  const work = async () => {
    while (!stopped) {
      if (resyncReason !== undefined) {
        const reason = resyncReason;
        resyncReason = undefined;
        await resyncNow(reason);
        continue;
      }
      // Before queued events: a client waits on it, and events after it apply on top either way.
      const task = tasks.shift();
      if (task !== undefined) {
        await task.run();
        continue;
      }
      const event = queue.shift();
      if (event === undefined) return;
      try {
        // A value event applies synchronously: no await, so a burst of them is applied in one go.
        const applying = applyChange(target, event);
        if (applying !== undefined) await applying;
        advance(event.seq);
      } catch (error) {
        log(
          `opcua-gateway: event ${event.seq} (${event.kind} ${event.id} ${event.idShortPath ?? ""}) did not apply: ${(error as Error).message}`,
        );
        resyncReason ??= `event ${event.seq} did not apply`;
      }
    }
  };

  const kick = () => {
    if (working !== undefined || stopped) return;
    working = work().finally(() => {
      working = undefined;
      if (!stopped && (queue.length > 0 || tasks.length > 0 || resyncReason !== undefined)) kick();
    });
  };

  const subscription: EventSubscription = await options.bus.subscribe({
    onEvent,
    onHeartbeat,
    onReconnect: () => requestResync("the message bus reconnected"),
    onStoreReplaced: () => {
      log(
        "opcua-gateway: the store's data in Redis was replaced (a new store incarnation: Redis lost its data); rebuilding the mirror from the store",
      );
      positionLost = true;
      acceptedSeq = 0;
      held.clear();
      queue.length = 0;
      resyncReason = "the store's data was replaced";
      kick();
    },
  });
  kick();
  await working;

  return {
    get appliedSeq() {
      return appliedSeq;
    },
    get syncCount() {
      return syncCount;
    },
    waitForSeq(seq, timeoutMs) {
      if (seq <= appliedSeq) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const waiter: Waiter = {
          seq,
          resolve,
          timer: setTimeout(() => {
            waiters.splice(waiters.indexOf(waiter), 1);
            resolve(false);
          }, timeoutMs),
        };
        waiters.push(waiter);
      });
    },
    resync: (reason) => requestResync(reason),
    exclusive<T>(task: () => Promise<T> | T): Promise<T> {
      if (stopped) return Promise.reject(new Error("the address-space sync has stopped"));
      return new Promise<T>((resolve, reject) => {
        tasks.push({
          async run() {
            try {
              resolve(await task());
            } catch (error) {
              reject(error);
            }
          },
          cancel: () => reject(new Error("the address-space sync has stopped")),
        });
        kick();
      });
    },
    async stop() {
      stopped = true;
      for (const task of tasks.splice(0)) task.cancel();
      clearTimeout(gapTimer);
      clearTimeout(heartbeatTimer);
      for (const waiter of waiters.splice(0)) {
        clearTimeout(waiter.timer);
        waiter.resolve(false);
      }
      await subscription.unsubscribe();
      await working?.catch(() => undefined);
    },
  };
}
