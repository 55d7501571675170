import type { ChangeEvent, Heartbeat } from "../contracts/index.ts";

/**
 * Puts one subscription's events back into seq order, without gaps where it can.
 *
 * Why: each model-store replica publishes the events of its own commits right after they commit
 * (docs/adr/0018), so with several replicas events of neighbouring seqs come from different
 * publishers and may cross on the way. An event ahead of the next expected seq is held; once the
 * missing ones arrive, everything goes out in order. When a gap does not fill within `windowMs` (a
 * replica died between commit and publish, a message was lost), the missing events are read from
 * the store's event log (`fetch`); only when the log cannot fill it either does the subscriber see
 * the gap, and resync as it always did. Heartbeats ahead of what was delivered are held the same
 * way, so a subscriber never sees a heartbeat run ahead of events that are merely late.
 */
export interface EventOrderOptions {
  deliver(event: ChangeEvent): void;
  deliverHeartbeat(heartbeat: Heartbeat): void;
  /** Committed events after `after` (in order, possibly fewer than asked); undefined when unavailable. */
  fetch?: (after: number, limit: number) => Promise<ChangeEvent[] | undefined>;
  /** How long a gap may stay open before the log is asked. Default 100 ms. */
  windowMs?: number;
  onError?: (error: unknown) => void;
}

export interface EventOrder {
  event(event: ChangeEvent): void;
  heartbeat(heartbeat: Heartbeat): void;
  /** Whether this seq is waiting for earlier ones (it came ahead of order). */
  isHeld(seq: number): boolean;
  /** The stream restarted (reconnect): forget the position, drop what is held. */
  reset(): void;
  close(): void;
}

const FETCH_LIMIT = 1_000;

export function createEventOrder(options: EventOrderOptions): EventOrder {
  const windowMs = options.windowMs ?? 100;
  const onError = options.onError ?? (() => {});
  /** The last seq delivered; undefined until the first event (a subscriber starts wherever it joins). */
  let last: number | undefined;
  const held = new Map<number, ChangeEvent>();
  let heldHeartbeat: Heartbeat | undefined;
  let timer: NodeJS.Timeout | undefined;
  let filling = false;
  let closed = false;

  const deliver = (event: ChangeEvent) => {
    last = event.seq;
    try {
      options.deliver(event);
    } catch (error) {
      onError(error);
    }
  };

  /** Deliver whatever is now in order; settle the gap state. */
  const drain = () => {
    while (last !== undefined && held.has(last + 1)) {
      const next = held.get(last + 1)!;
      held.delete(last + 1);
      deliver(next);
    }
    if (heldHeartbeat && last !== undefined && heldHeartbeat.seq <= last) {
      const heartbeat = heldHeartbeat;
      heldHeartbeat = undefined;
      options.deliverHeartbeat(heartbeat);
    }
    if (held.size === 0 && heldHeartbeat === undefined && timer) {
      clearTimeout(timer);
      timer = undefined;
    } else if ((held.size > 0 || heldHeartbeat) && !timer && !filling) {
      timer = setTimeout(fill, windowMs);
      timer.unref?.();
    }
  };

  /** The gap stayed open: read it from the log; what the log cannot give, the subscriber sees. */
  const fill = async () => {
    timer = undefined;
    if (closed || last === undefined) return;
    filling = true;
    try {
      const wanted = Math.max(heldHeartbeat?.seq ?? 0, ...held.keys());
      while (!closed && last !== undefined && last < wanted && !held.has(last + 1)) {
        const events = options.fetch
          ? await options
              .fetch(last, Math.min(FETCH_LIMIT, wanted - last))
              .catch((error) => (onError(error), undefined))
          : undefined;
        if (!events || events.length === 0 || last === undefined || events[0]!.seq !== last + 1) break;
        for (const event of events) if (last !== undefined && event.seq === last + 1) deliver(event);
        drain();
      }
    } finally {
      filling = false;
    }
    if (closed) return;
    // Whatever is still missing cannot be had: hand on what is held, in order, gap and all.
    if (last !== undefined && (held.size > 0 || heldHeartbeat) && !held.has(last + 1)) {
      for (const seq of [...held.keys()].sort((a, b) => a - b)) {
        const event = held.get(seq)!;
        held.delete(seq);
        deliver(event);
      }
      if (heldHeartbeat) {
        const heartbeat = heldHeartbeat;
        heldHeartbeat = undefined;
        options.deliverHeartbeat(heartbeat);
      }
    }
    drain();
  };

  return {
    event(event) {
      if (closed) return;
      if (last === undefined || event.seq === last + 1) {
        deliver(event);
        drain();
      } else if (event.seq > last + 1) {
        held.set(event.seq, event);
        drain();
      }
      // event.seq <= last: a duplicate (at-least-once delivery), dropped.
    },
    heartbeat(heartbeat) {
      if (closed) return;
      // Before the first event a heartbeat sets no position: events committed before it may still be
      // on their way (a heartbeat is read from the store, not from what was published).
      if (last === undefined || (heartbeat.seq <= last && held.size === 0)) {
        options.deliverHeartbeat(heartbeat);
        return;
      }
      if (!heldHeartbeat || heartbeat.seq > heldHeartbeat.seq) heldHeartbeat = heartbeat;
      drain();
    },
    isHeld: (seq) => held.has(seq),
    reset() {
      last = undefined;
      held.clear();
      heldHeartbeat = undefined;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
    close() {
      closed = true;
      this.reset();
    },
  };
}
