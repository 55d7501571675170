import { LUA_CATALOG_OPS } from "./lua-catalog-ops.ts";
import { luaScript } from "./lua-script.ts";
import { LUA_TERM_INDEX } from "./lua-term-index.ts";

/**
 * The catalog side of a commit on a Redis Cluster (docs/adr/0040, cluster-commit.ts): every key in
 * the catalog slot `{tp}`. This is the commit point of a round: seqs are taken here, only by commits
 * whose checks all hold, so the sequence stays gap-free.
 *
 * COMMIT: KEYS 1 seq, 2 kinds, 3 ordinal, 4 outbox, 5..10 rec/order of shell, submodel,
 *   concept-description, 11..16 their filter index terms/index, 17 pending, 18 fences, then the keys
 *   of the idempotency records the round claims.
 * ARGV: 1 token, 2 now (ms), 3 the submodels the round prepared (JSON, '' for none), 4 the number of
 *   commits, then per commit: the failed element precondition found by PREPARE (1-based; 0 = none),
 *   the event draft, the number of op values, the number of preconditions, 5 values per precondition
 *   (type `i`/`f`/`k`, its index in the commit's preconditions, then as in commit-script.ts, where
 *   a revision `@n` is the seq commit n of this round took; or `d`, n: commit n of this round took a
 *   seq (the element half of such a check is PREPARE's)), then the
 *   catalog ops (`pi`, `di` (kind, id), `ti`, `ik` as in commit-script.ts).
 * Returns one number per commit (its seq, or -i for its failed precondition i; the lowest failing
 * index of both steps, as the single script would find first), or the error FENCED when the round
 * was given up meanwhile (its locks were resolved away: it takes no seq).
 * When a commit took a seq and the round prepared submodels, `pending[token]` =
 * `<now>\1<seq of each commit, 0 = none, comma-separated>\1<submodels JSON>` until every submodel
 * has applied it.
 */
const COMMIT = luaScript(`${LUA_TERM_INDEX}${LUA_CATALOG_OPS}
if redis.call('ZSCORE', KEYS[18], ARGV[1]) then return redis.error_reply('FENCED twinport commit round given up') end
local results = {}
local seqs = {}
local any = false
local a = 5
for c = 1, tonumber(ARGV[4]) do
  local failed = tonumber(ARGV[a])
  if failed == 0 then failed = nil end
  local event = ARGV[a + 1]
  local opsEnd = a + 4 + tonumber(ARGV[a + 3]) * 5 + tonumber(ARGV[a + 2])
  a = a + 4
  for p = 1, tonumber(ARGV[a - 1]) do
    local t, at, x, y, z = ARGV[a], tonumber(ARGV[a + 1]), ARGV[a + 2], ARGV[a + 3], ARGV[a + 4]
    a = a + 5
    if failed == nil or at < failed then
      local holds
      if t == 'f' then
        holds = redis.call('HEXISTS', KEYS[2], x) == 0
      elseif t == 'k' then
        holds = redis.call('EXISTS', KEYS[tonumber(x)]) == 0
      elseif t == 'd' then
        holds = seqs[tonumber(x)] ~= nil and seqs[tonumber(x)] ~= '0'
      else
        if string.sub(z, 1, 1) == '@' then
          z = seqs[tonumber(string.sub(z, 2))]
          if z == nil or z == '0' then z = 'failed' end
        end
        flushTouches()
        local stored = redis.call('HGET', KEYS[KIND[x]], y)
        if z == '' then holds = (stored == false) else holds = (stored ~= false and revOf(stored) == z) end
      end
      if not holds then failed = at end
    end
  end
  if failed ~= nil then
    results[c] = -failed
    seqs[c] = '0'
    a = opsEnd
  else
    local seq = redis.call('INCR', KEYS[1])
    local rev = string.format('%d', seq)
    seqs[c] = rev
    results[c] = seq
    any = true
    local added = redis.pcall('XADD', KEYS[4], rev .. '-0', 'seq', rev, 'event', event)
    if type(added) == 'table' and added.err then
      flushTouches()
      return added
    end
    while a < opsEnd do
      local op = ARGV[a]
      if op == 'pi' then
        putIdentifiable(ARGV[a + 1], ARGV[a + 2], rev, ARGV[a + 3], ARGV[a + 4])
        a = a + 5
      elseif op == 'di' then
        deleteIdentifiable(ARGV[a + 1], ARGV[a + 2])
        a = a + 3
      elseif op == 'ti' then
        touchIdentifiable(ARGV[a + 1], ARGV[a + 2], rev)
        a = a + 3
      elseif op == 'ik' then
        putIdempotency(ARGV[a + 1], ARGV[a + 2], rev, ARGV[a + 3], ARGV[a + 4], event)
        a = a + 5
      else
        flushTouches()
        return redis.error_reply('twinport commit: unknown catalog op ' .. tostring(op))
      end
    end
  end
end
flushTouches()
if any and ARGV[3] ~= '' then
  redis.call('HSET', KEYS[17], ARGV[1], ARGV[2] .. '\\1' .. table.concat(seqs, ',') .. '\\1' .. ARGV[3])
end
return results
`);

/**
 * RESOLVE a lock whose deadline passed (its committer died or stalls): KEYS 1 pending, 2 fences;
 * ARGV 1 token, 2 now. When the round took seqs, returns `{'pending', record}` (it must be applied:
 * roll forward); otherwise fences the token, so its catalog step can never run, and returns
 * `{'fenced'}` (the lock may be released). Fences older than a day are dropped.
 */
const RESOLVE = luaScript(`
local record = redis.call('HGET', KEYS[1], ARGV[1])
if record then return { 'pending', record } end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[2]) - 86400000)
return { 'fenced' }
`);

export const CATALOG_SCRIPTS = { commit: COMMIT, resolve: RESOLVE };

/** A pending record (see COMMIT): when it was written, the seq of each commit, the submodels. */
export interface PendingRound {
  token: string;
  time: number;
  seqs: number[];
  submodels: string[];
}

export function parsePending(token: string, value: string): PendingRound {
  const [time, seqs, submodels] = value.split("\x01");
  return {
    token,
    time: Number(time),
    seqs: (seqs ?? "").split(",").map(Number),
    submodels: JSON.parse(submodels ?? "[]") as string[],
  };
}
