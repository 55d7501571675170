/**
 * Time-outs of requests that all wait the same length (a store client's default request timeout).
 * They expire in the order they were added, so one timer, armed for the oldest, serves them all:
 * a request costs a map entry instead of a setTimeout and a clearTimeout (ADR 0038).
 */
export class OrderedDeadlines<T> {
  /** Entry → when it expires (performance.now(), monotonic); insertion order is expiry order. */
  private readonly waiting = new Map<T, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number,
    private readonly expire: (entry: T) => void,
  ) {}

  add(entry: T): void {
    this.waiting.set(entry, performance.now() + this.ms);
    if (this.timer === undefined) this.arm(this.ms);
  }

  /** The entry was answered. Its timer is not touched: it fires, finds younger entries or none. */
  delete(entry: T): void {
    this.waiting.delete(entry);
  }

  get size(): number {
    return this.waiting.size;
  }

  /** Stops the timer; entries still waiting never expire. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting.clear();
  }

  private arm(ms: number): void {
    // Unreferenced: what keeps a process alive while it waits for a reply is its connection.
    this.timer = setTimeout(() => this.sweep(), Math.max(1, Math.ceil(ms)));
    this.timer.unref();
  }

  private sweep(): void {
    this.timer = undefined;
    const now = performance.now();
    for (const [entry, at] of this.waiting) {
      if (at > now) return this.arm(at - now);
      this.waiting.delete(entry);
      try {
        this.expire(entry);
      } catch {
        // One entry's failure must not leave the later ones without a time-out.
      }
    }
  }
}
