import type { Redis } from "ioredis";
import { acquireLease, releaseLease } from "../outbox/lease.ts";
import { FORWARDED_POSITIONS_KEY, type ForwardedPosition, redisForwardedPosition } from "./forwarded-position.ts";

/**
 * Who runs a connection's reading and writing. In distributed mode every model-store replica knows
 * every connection, but only the holder of the connection's lease talks to the asset for values,
 * so an asset sees one poller and one writer, never N.
 */
export interface ConnectionLease {
  /** How long a taken lease lasts unless renewed (Infinity: held for good). */
  readonly ttlMs: number;
  /** Take the lease, or renew it when already ours. True while we hold it. */
  acquire(): Promise<boolean>;
  /** Give it up at once, so another replica need not wait for it to expire. */
  release(): Promise<void>;
  /**
   * Where the holder records how far it forwarded model changes to the asset (shared by every
   * replica). Absent where no other process can take over (embedded mode on memory).
   */
  readonly forwarded?: ForwardedPosition;
}

export interface ConnectionLeases {
  lease(connectionId: string): ConnectionLease;
}

/** One process that is alone with its store (embedded mode on memory): every lease is ours. */
export const soleOwnerLeases: ConnectionLeases = {
  lease: () => ({ ttlMs: Number.POSITIVE_INFINITY, acquire: async () => true, release: async () => {} }),
};

export interface RedisConnectionLeasesOptions {
  redis: Redis;
  /** The store's key for a name (keeps the store's prefix and hash tag). */
  key: (name: string) => string;
  /** Unique per process. */
  owner: string;
  /** Default 5000 ms, like the outbox keeper: a dead owner is replaced about this much later. */
  ttlMs?: number;
}

/** One named lease in the store's Redis (the same scripts as the outbox relay's lease). */
export function redisLease(options: RedisConnectionLeasesOptions, name: string): ConnectionLease {
  const ttlMs = options.ttlMs ?? 5000;
  const key = options.key(name);
  return {
    ttlMs,
    acquire: () => acquireLease(options.redis, key, options.owner, ttlMs),
    release: async () => {
      await releaseLease(options.redis, key, options.owner);
    },
  };
}

/** Leases in the store's Redis, one key per connection, each with its forwarded position. */
export function redisConnectionLeases(options: RedisConnectionLeasesOptions): ConnectionLeases {
  return {
    lease: (connectionId) => {
      const name = `asset-connection:lease:${connectionId}`;
      const forwarded = redisForwardedPosition(
        options.redis,
        options.key(name),
        options.key(`asset-connection:forwarded:${connectionId}`),
        options.owner,
        options.key(FORWARDED_POSITIONS_KEY),
      );
      return { ...redisLease(options, name), forwarded };
    },
  };
}
