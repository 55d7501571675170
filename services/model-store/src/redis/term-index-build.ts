import { type IdentifiableKind, indexTermsOfJson } from "@twinport/shared";
import type { Redis } from "ioredis";
import { luaScript } from "./lua-script.ts";
import { LUA_TERM_INDEX } from "./lua-term-index.ts";
import { redisCall } from "./redis-errors.ts";
import { IDENTIFIABLE_KINDS, type RedisLayout, unpackIdentifiable } from "./redis-layout.ts";

/**
 * Builds the filter index (docs/adr/0035) of a store written before it had one: every identifiable
 * of every kind, in bounded batches (one script call per batch, so Redis never blocks long), then
 * the version key says the index is complete. Commits keep the index themselves meanwhile; an entry
 * the build computed from a record a commit has rewritten since is not written (the revision
 * differs), so the build can never put back an old term.
 *
 * Idempotent: a build interrupted (a crash, Redis gone) starts again at the next open; entries it
 * already wrote equal what it would write again.
 */
export const TERM_INDEX_VERSION = "1";
export const TERM_INDEX_BATCH = 2000;

/**
 * KEYS: rec, order, terms, index of one kind. ARGV: per identifiable id, revision, terms.
 * Returns how many entries it (re)indexed.
 */
const script = luaScript(`${LUA_TERM_INDEX}
local n = 0
for i = 1, #ARGV, 3 do
  local id = ARGV[i]
  local record = redis.call('HGET', KEYS[1], id)
  local ordinal = redis.call('ZSCORE', KEYS[2], id)
  if record and ordinal and string.match(record, '^%d*') == ARGV[i + 1] then
    reindex(KEYS[3], KEYS[4], id, tonumber(ordinal), ARGV[i + 2], false)
    n = n + 1
  end
end
return n
`);

export async function isTermIndexComplete(redis: Redis, layout: RedisLayout): Promise<boolean> {
  return (await redisCall(redis.get(layout.termIndexVersion))) === TERM_INDEX_VERSION;
}

/** Build the index unless the store says it is complete; answers how many identifiables it indexed. */
export async function ensureTermIndex(
  redis: Redis,
  layout: RedisLayout,
  batchSize = TERM_INDEX_BATCH,
): Promise<number> {
  if (await isTermIndexComplete(redis, layout)) return 0;
  let indexed = 0;
  for (const kind of IDENTIFIABLE_KINDS) indexed += await buildKind(redis, layout, kind, batchSize);
  await redisCall(redis.set(layout.termIndexVersion, TERM_INDEX_VERSION));
  return indexed;
}

async function buildKind(redis: Redis, layout: RedisLayout, kind: IdentifiableKind, batchSize: number) {
  const { rec, order } = layout.identifiable(kind);
  const { terms, index } = layout.termIndex(kind);
  let indexed = 0;
  let start = "-inf";
  for (;;) {
    const flat = await redisCall(redis.zrangebyscore(order, start, "+inf", "WITHSCORES", "LIMIT", 0, batchSize));
    if (flat.length === 0) return indexed;
    const ids = flat.filter((_, i) => i % 2 === 0);
    const values = await redisCall(redis.hmget(rec, ...ids));
    const args: string[] = [];
    ids.forEach((id, i) => {
      const value = values[i];
      if (value === null) return;
      const { revision, json } = unpackIdentifiable(value);
      args.push(id, String(revision), indexTermsOfJson(kind, json).join("\0"));
    });
    if (args.length > 0) indexed += Number(await redisCall(script.run(redis, [rec, order, terms, index], args)));
    start = `(${flat[flat.length - 1]}`;
  }
}
