import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { redisCall } from "./redis-errors.ts";

/**
 * The incarnation of the store's data in Redis (docs/adr/0018, amendment "Redis that comes back
 * empty"): a random id under one fixed key, set (NX) by the first model-store that opens a Redis
 * without one. A Redis that lost its data (restarted without its volume, FLUSHALL, a failover to an
 * empty replica) lost this key with it, so a process that still holds the old id can tell, and its
 * commit script refuses to write (commit-script.ts): its sequence, caches and every subscriber's
 * position belong to data that is gone, and the new sequence would reuse their revisions.
 */

/** The first word of the commit script's refusal; redis-errors.ts maps it to "unavailable" (503). */
export const STORE_LOST_REPLY = "STORELOST";

/** What Redis holds compared with the incarnation this process opened. */
export type IncarnationState = "held" | "lost" | "replaced";

/** Adopt the store's incarnation: the one Redis holds, or a new one when it holds none. */
export async function adoptIncarnation(redis: Redis, key: string): Promise<string> {
  const fresh = `${Date.now().toString(36)}-${randomBytes(8).toString("hex")}`;
  await redisCall(redis.set(key, fresh, "NX"));
  const held = await redisCall(redis.get(key));
  // Set by us or by a replica that opened it a moment earlier: either way, the one the store holds.
  return held ?? fresh;
}

/** Compare what Redis holds with `mine` (throws RepositoryUnavailableError when Redis does not answer). */
export async function incarnationState(redis: Redis, key: string, mine: string): Promise<IncarnationState> {
  const held = await redisCall(redis.get(key));
  if (held === mine) return "held";
  return held === null ? "lost" : "replaced";
}

/** True for the commit script's refusal (a ReplyError, or what it was mapped to, with it as cause). */
export function isStoreLost(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause)
    if (e.message.startsWith(STORE_LOST_REPLY) || e.message.includes(`: ${STORE_LOST_REPLY} `)) return true;
  return false;
}
