/**
 * Since when a message read now may have waited, judged by this process's event loop alone. A timer
 * fires every `intervalMs` while the loop turns; a gap between two runs much longer than that means
 * the loop stood still (the process stopped by SIGSTOP, a VM stall, a long GC pause, a turn blocked
 * by work). Nothing was read meanwhile, so what is read just after may have waited since the stall
 * began. Unlike a sender's timestamp this needs no clocks to agree across machines (the budget on
 * the wire stays relative, wire.ts).
 *
 * After a stall libuv may run the timer before or after the socket reads that waited (both were
 * seen): a stall found by the timer is remembered for two intervals, and a timer that has not run
 * for long marks a stall in progress.
 */
export interface LoopWatch {
  /** Ms since epoch: no later than the moment a message read now may have arrived. */
  lastTurn(): number;
  stop(): void;
}

/** A gap this much longer than the interval is a stall, not a timer running a little late. */
const STALL_MS = 100;

export function watchLoop(intervalMs = 100): LoopWatch {
  let last = Date.now();
  let stall: { from: number; until: number } | undefined;
  const timer = setInterval(() => {
    const now = Date.now();
    if (now - last > intervalMs + STALL_MS) stall = { from: last, until: now };
    last = now;
  }, intervalMs);
  timer.unref();
  return {
    lastTurn() {
      const now = Date.now();
      if (stall !== undefined && now - stall.until <= 2 * intervalMs) return stall.from;
      return Math.min(last, now);
    },
    stop: () => clearInterval(timer),
  };
}
