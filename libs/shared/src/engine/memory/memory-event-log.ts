import type { ChangeEvent } from "../../contracts/index.ts";
import type { EventLogBounds } from "../ports/index.ts";

/** How much of the past the in-memory event log keeps: at most this many events, none older. */
export interface MemoryEventLogRetention {
  maxEvents: number;
  maxAgeMs: number;
}

/**
 * Only the newest events keep their payload (the new state, up to 256 KiB each): 100,000 full
 * events could hold gigabytes. Older ones are kept as `payloadOmitted`, as the bus marks a large
 * one, and a reader fetches the current state instead.
 */
export const PAYLOAD_WINDOW = 1_000;

/** Defaults when a memory repository is made without retention (tests, tools): small. */
export const DEFAULT_MEMORY_EVENT_LOG: MemoryEventLogRetention = { maxEvents: 10_000, maxAgeMs: 86_400_000 };

export interface MemoryEventLog {
  append(event: ChangeEvent): void;
  read(after: number, limit: number): ChangeEvent[];
  bounds(latest: number): EventLogBounds;
}

/**
 * The event log of embedded memory mode (issue 15): what the Redis outbox is in distributed mode,
 * so `GetEvents` answers the same way and an event stream can replay what a client missed. A ring
 * of the last `maxEvents` events; events older than `maxAgeMs` are dropped as the log is touched.
 * Lost with the process, like the rest of a memory store: the seq starts again at 1 then, and a
 * client resuming from an earlier run is told to re-read (docs/adr/0029).
 */
export function createMemoryEventLog(
  retention: MemoryEventLogRetention = DEFAULT_MEMORY_EVENT_LOG,
  now: () => number = Date.now,
): MemoryEventLog {
  // A circular buffer: `start` is the oldest, `size` events from there. Events are appended in seq
  // order with no gaps, so the event with seq s is at (start + s - seqs[start]) % capacity.
  const capacity = retention.maxEvents;
  const events: (ChangeEvent | undefined)[] = new Array(capacity);
  const times: number[] = new Array(capacity);
  let start = 0;
  let size = 0;

  const expire = () => {
    const oldestKept = now() - retention.maxAgeMs;
    while (size > 0 && times[start]! < oldestKept) {
      events[start] = undefined;
      start = (start + 1) % capacity;
      size--;
    }
  };
  const at = (i: number) => events[(start + i) % capacity]!;

  return {
    append(event) {
      if (size === capacity) {
        events[start] = undefined;
        start = (start + 1) % capacity;
        size--;
      }
      const slot = (start + size) % capacity;
      events[slot] = event;
      if (size >= PAYLOAD_WINDOW) {
        const aged = (start + size - PAYLOAD_WINDOW) % capacity;
        const old = events[aged]!;
        if (old.payload !== undefined) {
          const { payload: _payload, ...rest } = old;
          events[aged] = { ...rest, payloadOmitted: true };
        }
      }
      times[slot] = now();
      size++;
      expire();
    },
    read(after, limit) {
      expire();
      if (size === 0) return [];
      const first = at(0).seq;
      const from = Math.max(0, after + 1 - first);
      const result: ChangeEvent[] = [];
      for (let i = from; i < size && result.length < limit; i++) result.push(at(i));
      return result;
    },
    bounds(latest) {
      expire();
      return size === 0 ? { latest } : { latest, oldest: at(0).seq };
    },
  };
}
