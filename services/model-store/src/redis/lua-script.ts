import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

/**
 * A Lua script run with EVALSHA, falling back to EVAL when the server does not know it yet (a
 * restart or SCRIPT FLUSH). KEYS and ARGV go as one flat array (concat, never a spread into a
 * function call: a commit of 100,000 elements has half a million arguments).
 */
export interface LuaScript {
  run(redis: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
}

export function luaScript(source: string): LuaScript {
  const sha = createHash("sha1").update(source).digest("hex");
  return {
    async run(redis, keys, args) {
      const tail = ([keys.length] as (string | number)[]).concat(keys, args);
      try {
        return await redis.call("EVALSHA", [sha as string | number].concat(tail));
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
        return await redis.call("EVAL", [source as string | number].concat(tail));
      }
    },
  };
}
