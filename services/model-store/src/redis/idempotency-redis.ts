import { type Repository, RepositoryOutcomeUnknownError, RepositoryUnavailableError } from "@twinport/shared";
import type { Redis } from "ioredis";
import { luaScript } from "./lua-script.ts";
import { plainReason, redisCall, toRepositoryError } from "./redis-errors.ts";
import type { RedisLayout } from "./redis-layout.ts";

type IdempotencyMethods = Pick<Repository, "getIdempotencyRecord" | "putIdempotencyReply">;

/**
 * Idempotency records in Redis (docs/adr/0017), under the store's hash tag so the commit script
 * checks and writes them atomically with the commit:
 *
 *   {tp}:idem:<b64url key>   hash   f = fingerprint; s = seq, t = commit time (ms), e = event draft
 *                                   (written by the commit script); r = the reply (written after);
 *                                   PEXPIRE'd to the idempotency window
 */
export function idempotencyKey(layout: RedisLayout, key: string): string {
  return layout.key(`idem:${Buffer.from(key, "utf8").toString("base64url")}`);
}

/** Store the reply, unless another fingerprint holds the key; the event draft is no longer needed. */
const PUT_REPLY_SOURCE = `
local f = redis.call('HGET', KEYS[1], 'f')
if f and f ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'f', ARGV[1], 'r', ARGV[2])
redis.call('HDEL', KEYS[1], 'e')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;
const putReplyScript = luaScript(PUT_REPLY_SOURCE);

export function redisIdempotency(redis: Redis, layout: RedisLayout): IdempotencyMethods {
  return {
    async getIdempotencyRecord(key) {
      const [f, s, t, e, r] = await redisCall(redis.hmget(idempotencyKey(layout, key), "f", "s", "t", "e", "r"));
      if (f === null) return undefined;
      return {
        fingerprint: f,
        ...(s !== null ? { seq: Number(s) } : {}),
        ...(t !== null ? { committedAt: Number(t) } : {}),
        ...(e !== null ? { event: e } : {}),
        ...(r !== null ? { reply: r } : {}),
      };
    },
    async putIdempotencyReply(key, fingerprint, reply, ttlMs) {
      await redisCall(
        putReplyScript.run(redis, [idempotencyKey(layout, key)], [fingerprint, reply, Math.max(1, Math.ceil(ttlMs))]),
      );
    },
  };
}

/**
 * The failure of a commit, told apart by whether the script can have run (docs/adr/0017):
 * - not sent: the connection was not ready, or ioredis refused to queue it (no offline queue), or
 *   Redis refused it before running it (LOADING, BUSY, OOM, …) → RepositoryUnavailableError (503);
 * - sent, no answer: command timeout, connection lost with the command on the wire, retries
 *   exhausted → RepositoryOutcomeUnknownError (504, "the outcome is unknown");
 * - any other Redis error reply (a script bug) stays as it is: an internal error.
 */
export async function commitCall<T>(redis: Redis, commit: () => Promise<T>): Promise<T> {
  if (redis.status !== "ready")
    throw new RepositoryUnavailableError(
      `Redis is unavailable: the connection is ${redis.status}; the commit was not sent`,
    );
  try {
    return await commit();
  } catch (error) {
    if (error instanceof RepositoryUnavailableError || error instanceof RepositoryOutcomeUnknownError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof Error && error.name === "ReplyError") throw toRepositoryError(error);
    if (/^Stream isn't writeable/.test(message))
      throw new RepositoryUnavailableError(`Redis is unavailable: ${plainReason(error)}; the commit was not sent`, {
        cause: error,
      });
    // An encoding failure in JS (before anything was sent) is a bug, not an outage.
    if (
      error instanceof TypeError ||
      error instanceof RangeError ||
      (error instanceof Error && error.name === "CommitEncodingError")
    )
      throw error;
    throw new RepositoryOutcomeUnknownError(`Redis did not answer the commit: ${plainReason(error)}`, {
      cause: error,
    });
  }
}
