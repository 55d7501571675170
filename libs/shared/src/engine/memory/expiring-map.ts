/**
 * A map whose entries expire: checked when read, and swept at most once a second on write, so a
 * long-running process does not keep every entry it ever made. `now` is injectable for tests.
 */
export class ExpiringMap<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry?.value;
  }

  set(key: string, value: T, ttlMs: number): void {
    this.sweep();
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  /** How many live entries there are. */
  countLive(): number {
    let count = 0;
    for (const key of [...this.entries.keys()]) if (this.get(key) !== undefined) count++;
    return count;
  }

  clear(): void {
    this.entries.clear();
  }

  private sweep(): void {
    const at = this.now();
    if (at - this.lastSweep < 1000) return;
    this.lastSweep = at;
    for (const [key, entry] of this.entries) if (entry.expiresAt <= at) this.entries.delete(key);
  }
}
