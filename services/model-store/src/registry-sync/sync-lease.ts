import type { Redis } from "ioredis";
import { acquireLease, releaseLease } from "../outbox/lease.ts";
import type { ConnectionLease } from "../asset-connections/connection-lease.ts";

export interface RegistrySyncLeaseOptions {
  redis: Redis;
  /** The store's key for a name (keeps the store's prefix and hash tag). */
  key: (name: string) => string;
  /** Unique per process. */
  owner: string;
  /** Default 5000 ms: a dead owner's job moves to another replica about this much later. */
  ttlMs?: number;
}

/**
 * One lease for the whole registry synchronization: the model-store replicas (and embedded
 * processes sharing one Redis) all know every change, but only the holder talks to registries,
 * so each descriptor is registered once, not once per replica.
 */
export function redisRegistrySyncLease(options: RegistrySyncLeaseOptions): ConnectionLease {
  const ttlMs = options.ttlMs ?? 5000;
  const key = options.key("registry-sync:lease");
  return {
    ttlMs,
    acquire: () => acquireLease(options.redis, key, options.owner, ttlMs),
    release: async () => {
      await releaseLease(options.redis, key, options.owner);
    },
  };
}
