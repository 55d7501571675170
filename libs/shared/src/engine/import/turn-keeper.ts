/** The longest an import keeps the event loop before other requests get their turn. */
const TURN_MS = 20;
/** The clock is read once per this many calls: pause() is called per identifiable. */
const CALLS_PER_LOOK = 64;

/**
 * Lets other requests in while an import reads: an import of a document in memory never waits
 * for I/O, so without this one chunk of tiny identifiables (a 256 KiB chunk holds 87,000 `{}`)
 * would hold the process for as long as it takes to check them all, and every other request
 * (HTTP, OPC UA, the NATS responder) would wait that long.
 */
export class TurnKeeper {
  private started = performance.now();
  private calls = 0;

  /** Resolves at once while this turn is young; after TURN_MS, on the next turn of the event loop. */
  async pause(): Promise<void> {
    if (++this.calls < CALLS_PER_LOOK) return;
    this.calls = 0;
    if (performance.now() - this.started < TURN_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}
