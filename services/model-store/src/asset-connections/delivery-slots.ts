/**
 * At most `limit` readings of one connection are being written into the model at a time; the others
 * wait for a slot. With 1,000 MQTT topics busy, every provider had a write in flight: a thousand
 * commands queued for as long as the store was behind, each value a second or more old when it was
 * committed (bench/asset-ingest.ts). A push source takes its newest reading only once it has a
 * slot, so while it waits newer messages replace older ones (latest wins) and what is committed is
 * recent.
 *
 * A released slot goes to its waiter at the end of the turn (setImmediate), not at once. The store
 * sends each group of commits to Redis at the end of a turn too, one call at a time (group commit);
 * a waiter handed its slot at once would be planned in the very turn the previous call's answer
 * arrived, ahead of that send, so the commits already waiting had to wait for it and the model-store
 * and Redis took turns. Handed over after the send, the next readings are planned while the commits
 * before them are in Redis (bench/asset-ingest.ts, ADR 0044).
 */
export class DeliverySlots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  /** Slots released this turn, handed to waiters at its end. */
  private released = 0;

  constructor(readonly limit: number) {}

  /** Resolves once a slot is ours; `release` it afterwards. */
  acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    if (this.waiting.length === 0) {
      this.active--;
      return;
    }
    if (this.released++ === 0) setImmediate(this.handOver);
  }

  private readonly handOver = () => {
    const count = this.released;
    this.released = 0;
    for (let i = 0; i < count; i++) {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  };
}
