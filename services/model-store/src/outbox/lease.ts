import type { Redis } from "ioredis";
import { luaScript } from "../redis/lua-script.ts";
import { redisCall } from "../redis/redis-errors.ts";

/**
 * A lease: one owner at a time holds a key for `ttlMs`, renews it while alive, and anyone else
 * may take it once it expired. Used by the outbox relay (one replica relays) and for seeding the
 * model once "under a lock". Renew and release compare the owner inside Redis, so a replica that
 * lost its lease can never extend or delete the new holder's.
 */

const ACQUIRE = luaScript(`
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`);

const RENEW = luaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

const RELEASE = luaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/** Take the lease if it is free (or already ours, then it is renewed). True when we hold it. */
export async function acquireLease(redis: Redis, key: string, owner: string, ttlMs: number): Promise<boolean> {
  return (await redisCall(ACQUIRE.run(redis, [key], [owner, Math.ceil(ttlMs)]))) === 1;
}

/** Extend our lease; false when it expired or someone else holds it now. */
export async function renewLease(redis: Redis, key: string, owner: string, ttlMs: number): Promise<boolean> {
  return (await redisCall(RENEW.run(redis, [key], [owner, Math.ceil(ttlMs)]))) === 1;
}

/** Give the lease up at once (so another replica need not wait for it to expire). */
export async function releaseLease(redis: Redis, key: string, owner: string): Promise<boolean> {
  return (await redisCall(RELEASE.run(redis, [key], [owner]))) === 1;
}
