import type { IdempotencyClaim, IdempotencyRecord, Repository } from "../ports/index.ts";

type IdempotencyMethods = Pick<Repository, "getIdempotencyRecord" | "putIdempotencyReply">;

interface Entry {
  record: IdempotencyRecord;
  expiresAt: number;
}

/**
 * Idempotency records (docs/adr/0017) in process memory, for the memory repository: checked and
 * claimed inside its synchronous commit, expired when read and swept now and then on write.
 */
export function createMemoryIdempotency(now: () => number = Date.now): IdempotencyMethods & {
  /** The `idempotency-key-free` precondition. */
  isFree(key: string): boolean;
  /** Part of a commit: write the record of the claim at `seq`. */
  claim(claim: IdempotencyClaim, seq: number, event: string): void;
  clearIdempotency(): void;
} {
  const entries = new Map<string, Entry>();
  let lastSweep = 0;

  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  const sweep = () => {
    const at = now();
    if (at - lastSweep < 1000) return;
    lastSweep = at;
    for (const [key, entry] of entries) if (entry.expiresAt <= at) entries.delete(key);
  };

  return {
    isFree: (key) => live(key) === undefined,
    claim(claim, seq, event) {
      sweep();
      const at = now();
      entries.set(claim.key, { record: { fingerprint: claim.fingerprint, seq, committedAt: at, event }, expiresAt: at + claim.ttlMs });
    },
    async getIdempotencyRecord(key) {
      const entry = live(key);
      return entry ? { ...entry.record } : undefined;
    },
    async putIdempotencyReply(key, fingerprint, reply, ttlMs) {
      sweep();
      const entry = live(key);
      if (entry && entry.record.fingerprint !== fingerprint) return;
      entries.set(key, { record: { ...(entry?.record ?? { fingerprint }), reply }, expiresAt: now() + ttlMs });
    },
    clearIdempotency() {
      entries.clear();
    },
  };
}
