/**
 * Work handed in during one event-loop turn, run together in its check phase (one `setImmediate`,
 * right after the poll phase that delivered the requests).
 *
 * Why (docs/adr/0056): Node runs each socket's callback, and the microtasks it starts, before it
 * reads the next socket. A request answered by an in-process store is therefore parsed, executed and
 * answered before the next one is read: every answer is its own write that wakes the load's client
 * (an interrupt and a VM exit on a halting guest), and the HTTP parser, the engine and the socket
 * code take turns in the CPU's caches. Gathered, a turn's requests are parsed together, executed
 * together and answered back to back: measured, an embedded PATCH `$value` cost 41–57 µs of CPU
 * instead of 79–81. The added latency is the rest of the turn.
 */
export type TurnQueue = (run: () => void) => void;

export function createTurnQueue(): TurnQueue {
  let queued: (() => void)[] = [];
  const runAll = () => {
    const now = queued;
    queued = [];
    let failure: { error: unknown } | undefined;
    for (const run of now) {
      try {
        run();
      } catch (error) {
        // One task's fault must not strand the others' requests; it still surfaces as it would have.
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  };
  return (run) => {
    if (queued.push(run) === 1) setImmediate(runAll);
  };
}
