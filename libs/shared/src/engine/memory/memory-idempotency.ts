import type { IdempotencyClaim, IdempotencyRecord, Repository } from "../ports/index.ts";
import { ExpiringMap } from "./expiring-map.ts";

type IdempotencyMethods = Pick<Repository, "getIdempotencyRecord" | "putIdempotencyReply">;

/**
 * Idempotency records (docs/adr/0017) in process memory, for the memory repository: checked and
 * claimed inside its synchronous commit.
 */
export function createMemoryIdempotency(now: () => number = Date.now): IdempotencyMethods & {
  /** The `idempotency-key-free` precondition. */
  isFree(key: string): boolean;
  /** Part of a commit: write the record of the claim at `seq`. */
  claim(claim: IdempotencyClaim, seq: number, event: string): void;
  clearIdempotency(): void;
} {
  const records = new ExpiringMap<IdempotencyRecord>(now);

  return {
    isFree: (key) => records.get(key) === undefined,
    claim(claim, seq, event) {
      records.set(claim.key, { fingerprint: claim.fingerprint, seq, committedAt: now(), event }, claim.ttlMs);
    },
    async getIdempotencyRecord(key) {
      const record = records.get(key);
      return record ? { ...record } : undefined;
    },
    async putIdempotencyReply(key, fingerprint, reply, ttlMs) {
      const record = records.get(key);
      if (record && record.fingerprint !== fingerprint) return;
      // The event draft only rebuilds a reply that was never stored: dropped once it is (as in Redis),
      // so a record kept for the whole window costs its reply, not its reply and its event.
      const { event: _rebuildOnly, ...kept } = record ?? { fingerprint };
      records.set(key, { ...kept, reply }, ttlMs);
    },
    clearIdempotency() {
      records.clear();
    },
  };
}
