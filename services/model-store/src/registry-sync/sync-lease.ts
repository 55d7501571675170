import {
  type ConnectionLease,
  type RedisConnectionLeasesOptions,
  redisLease,
} from "../asset-connections/connection-lease.ts";

/** `ttlMs` (default 5000 ms): a dead owner's job moves to another replica about this much later. */
export type RegistrySyncLeaseOptions = RedisConnectionLeasesOptions;

/**
 * One lease for the whole registry synchronization: the model-store replicas (and embedded
 * processes sharing one Redis) all know every change, but only the holder talks to registries,
 * so each descriptor is registered once, not once per replica.
 */
export function redisRegistrySyncLease(options: RegistrySyncLeaseOptions): ConnectionLease {
  return redisLease(options, "registry-sync:lease");
}
