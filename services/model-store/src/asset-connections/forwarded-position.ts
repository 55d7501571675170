import type { Redis } from "ioredis";
import { luaScript } from "../redis/lua-script.ts";
import { redisCall } from "../redis/redis-errors.ts";

/**
 * How far a connection's lease holder has forwarded model changes to the asset: the event seq up to
 * which every change of an element it writes has been written to the asset (or refused by it).
 * Kept beside the lease, so a replica that takes the lease over after a crash forwards what was
 * committed after that seq (while no replica held the lease, or before the dead holder got to it)
 * before it reads the asset and could overwrite those writes with the asset's older values.
 */
export interface ForwardedPosition {
  /** The saved seq, or undefined when no holder ever saved one (the first start). */
  read(): Promise<number | undefined>;
  /**
   * Saves `seq` while we hold the lease, and never backwards; `restart` sets it even when lower
   * (the store's seq went back: a flushed Redis). False when the lease is not ours.
   */
  save(seq: number, options?: { restart?: boolean }): Promise<boolean>;
}

/**
 * Writes only for the lease holder (KEYS[1]: the lease, ARGV[1]: its owner), never backwards unless
 * ARGV[3] = "restart"; names the position in the index (KEYS[3]) that /reset empties.
 */
const SAVE_POSITION = luaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local current = tonumber(redis.call('GET', KEYS[2]) or '-1')
if ARGV[3] == 'restart' or tonumber(ARGV[2]) > current then redis.call('SET', KEYS[2], ARGV[2]) end
redis.call('SADD', KEYS[3], KEYS[2])
return 1
`);

/** The set of every saved position's key, so /reset finds them without scanning the key space. */
export const FORWARDED_POSITIONS_KEY = "asset-connection:forwarded-positions";

/**
 * /reset ends the model's history: a holder that takes a lease after it must not forward a change
 * made before it (the model it belonged to is gone, or was imported anew). Deleting the positions
 * makes the next holder start at the store's seq, as the first holder ever (docs/adr/0059). Run by
 * every process on Redis, whether or not it runs connections itself: the holders may all be down.
 */
export async function forgetForwardedPositions(redis: Redis, key: (name: string) => string): Promise<void> {
  const index = key(FORWARDED_POSITIONS_KEY);
  const positions = await redisCall(redis.smembers(index));
  // One key at a time: a Redis Cluster takes a multi-key DEL only within one slot.
  for (const position of positions) await redisCall(redis.del(position));
  await redisCall(redis.del(index));
}

export function redisForwardedPosition(
  redis: Redis,
  leaseKey: string,
  positionKey: string,
  owner: string,
  indexKey: string,
) {
  return {
    async read() {
      const saved = await redisCall(redis.get(positionKey));
      return saved === null ? undefined : Number(saved);
    },
    async save(seq, options) {
      const restart = options?.restart ? "restart" : "";
      return (
        (await redisCall(SAVE_POSITION.run(redis, [leaseKey, positionKey, indexKey], [owner, seq, restart]))) === 1
      );
    },
  } satisfies ForwardedPosition;
}
