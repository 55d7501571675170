import type { Repository } from "@twinport/shared";
import type { Redis } from "ioredis";
import { luaScript } from "./lua-script.ts";
import { scanTargets } from "./redis-client.ts";
import { redisCall } from "./redis-errors.ts";
import type { RedisLayout } from "./redis-layout.ts";

type HandleMethods = Pick<
  Repository,
  | "putOperationHandle"
  | "getOperationHandle"
  | "deleteOperationHandles"
  | "renewOperationRunner"
  | "isOperationRunnerAlive"
>;

/**
 * Operation handles in Redis, under the store's hash tag (so a later script may touch them together
 * with other keys):
 *
 *   {tp}:op:<b64url handleId>          hash    v = version, j = the handle's JSON; PEXPIRE'd on every write
 *   {tp}:op-runner:<b64url runnerId>   string  lease of a process running invocations (SET PX)
 *
 * The compare-and-set is one script: read the version, compare, write, set the TTL. The JSON is
 * never decoded in Lua.
 */
const PUT_SOURCE = `
local stored = redis.call('HGET', KEYS[1], 'v')
if ARGV[1] == '' then
  if stored then return 0 end
elseif stored ~= ARGV[1] then
  return 0
end
local version = (tonumber(stored) or 0) + 1
redis.call('HSET', KEYS[1], 'v', version, 'j', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return version
`;
const putScript = luaScript(PUT_SOURCE);

const encode = (text: string) => Buffer.from(text, "utf8").toString("base64url");

/** SCAN pattern for keys starting with `key` (glob characters in it escaped). */
const patternOf = (key: string) => `${key.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;

export function redisOperationHandles(redis: Redis, layout: RedisLayout): HandleMethods {
  const handleKey = (handleId: string) => layout.key(`op:${encode(handleId)}`);
  const runnerKey = (runnerId: string) => layout.key(`op-runner:${encode(runnerId)}`);
  const ttl = (ms: number) => Math.max(1, Math.ceil(ms));

  return {
    async putOperationHandle(handleId, json, { ttlMs, expectedVersion }) {
      const expected = expectedVersion === null ? "" : String(expectedVersion);
      const version = Number(
        await redisCall(putScript.run(redis, [handleKey(handleId)], [expected, json, ttl(ttlMs)])),
      );
      return version > 0 ? version : undefined;
    },
    async getOperationHandle(handleId) {
      const [version, json] = await redisCall(redis.hmget(handleKey(handleId), "v", "j"));
      return version === null || json === null ? undefined : { json, version: Number(version) };
    },
    async deleteOperationHandles() {
      let count = 0;
      for (const node of scanTargets(redis)) {
        let cursor = "0";
        do {
          const [next, found] = await redisCall(
            node.scan(cursor, "MATCH", patternOf(layout.key("op:")), "COUNT", 1000),
          );
          cursor = next;
          if (found.length > 0) count += await redisCall(redis.unlink(...found));
        } while (cursor !== "0");
      }
      return count;
    },
    async renewOperationRunner(runnerId, ttlMs) {
      await redisCall(redis.set(runnerKey(runnerId), "1", "PX", ttl(ttlMs)));
    },
    async isOperationRunnerAlive(runnerId) {
      return (await redisCall(redis.exists(runnerKey(runnerId)))) === 1;
    },
  };
}
