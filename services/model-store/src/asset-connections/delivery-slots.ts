/**
 * At most `limit` readings of one connection are being written into the model at a time; the others
 * wait for a slot. With 1,000 MQTT topics busy, every provider had a write in flight: a thousand
 * commands queued for as long as the store was behind, each value a second or more old when it was
 * committed (bench/asset-ingest.ts). A push source takes its newest reading only once it has a
 * slot, so while it waits newer messages replace older ones (latest wins) and what is committed is
 * recent.
 */
export class DeliverySlots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

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
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}
