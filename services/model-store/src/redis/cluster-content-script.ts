import { LUA_ELEMENT_POSITIONS } from "./lua-element-positions.ts";
import { LUA_PATHS } from "./lua-paths.ts";
import { luaScript } from "./lua-script.ts";

/**
 * The content side of a commit on a Redis Cluster (docs/adr/0040, cluster-commit.ts): scripts over
 * the keys of ONE submodel, which share its hash tag and so one slot and one node.
 *
 * KEYS (every script): 1 el, 2 order, 3 ctr, 4 prep (the lock: token `t`, deadline `d`), 5 prep:ops
 * (the stashed ops).
 *
 * PREPARE takes the lock and checks the element preconditions of the round's commits on this
 * submodel; the ops of the commits whose checks hold are stashed in prep:ops, so the apply step and
 * the recovery of a round whose committer died need nothing but the token and the seqs.
 * ARGV: 1 token, 2 deadline (ms; after it another committer may resolve the lock), 3 the number of
 * commits, then per commit: its index in the round (1-based), the number of preconditions, the
 * number of op values, 4 values per precondition (type `e`/`o`/`d`, its index in the commit's
 * preconditions (1-based), path, revision or `revision:orderKey` for `o`, the orderKey or '' for
 * `d`: the element exists, its revision is checked in the catalog step), then the op values.
 * Returns `{'busy', token, deadline}` when another round holds the lock, else one number per commit:
 * 0 = its checks hold, i = its precondition i failed.
 * Each check reads the state before the round: the committer puts a commit whose checks could
 * depend on an earlier commit of the round into the next round (cluster-rounds.ts).
 */
const PREPARE = luaScript(`${LUA_PATHS}
local holder = redis.call('HMGET', KEYS[4], 't', 'd')
if holder[1] and holder[1] ~= ARGV[1] then return { 'busy', holder[1], holder[2] or '0' } end
redis.call('DEL', KEYS[5])
local function revOf(record) return string.match(record, '^%d*') end
local function stash(from, to)
  local i = from
  while i <= to do
    local j = math.min(i + 999, to)
    redis.call('RPUSH', KEYS[5], unpack(ARGV, i, j))
    i = j + 1
  end
end
local memo = {}
local results = {}
local a = 4
for c = 1, tonumber(ARGV[3]) do
  local index, nPre, nOps = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  a = a + 3
  local failed = 0
  for p = 1, nPre do
    local t, at, path, z = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3]
    a = a + 4
    if failed == 0 then
      local internal = resolvePath(KEYS[2], path, memo)
      local stored = internal and redis.call('HGET', KEYS[1], internal)
      local orderKey = nil
      if t == 'd' then
        -- exists (and keeps its orderKey): its revision is that of an earlier commit of the round
        if z ~= '' then orderKey = z end
        z = nil
      elseif t == 'o' then
        local colon = string.find(z, ':', 1, true)
        orderKey = string.sub(z, colon + 1)
        z = string.sub(z, 1, colon - 1)
      end
      local holds
      if z == nil then holds = (stored ~= false and stored ~= nil)
      elseif z == '' then holds = (stored == false or stored == nil)
      else holds = (stored and revOf(stored) == z) or false end
      if holds and orderKey ~= nil then
        local _, _, k = string.find(stored, '^%d*\\1([^\\1]*)\\1')
        holds = (k == orderKey)
      end
      if not holds then failed = tonumber(at) end
    end
  end
  results[c] = failed
  if failed == 0 and nOps > 0 then
    redis.call('RPUSH', KEYS[5], index, nOps)
    stash(a, a + nOps - 1)
  end
  a = a + nOps
end
redis.call('HSET', KEYS[4], 't', ARGV[1], 'd', ARGV[2])
return results
`);

/**
 * APPLY writes the stashed ops of the commits that took a seq, with revision = that seq, and drops
 * the lock; a token that no longer holds the lock (applied already, by the committer or by the
 * recovery) changes nothing, so applying twice is harmless. ARGV: 1 token, 2 the number of commits
 * in the round, then the seq of each (0 = it did not commit). Ops: `pe` path json, `ie` path json
 * parentPath isItem, `de` path, `te` path, `dx` (the submodel is deleted: all its keys go).
 * The op code is commit-script.ts's, on one submodel (b = 1).
 */
const APPLY = luaScript(`${LUA_PATHS}
if redis.call('HGET', KEYS[4], 't') ~= ARGV[1] then return 0 end
local V = redis.call('LRANGE', KEYS[5], 0, -1)
local function restOf(record)
  local at = string.find(record, '\\1', 1, true)
  return string.sub(record, at)
end
${LUA_ELEMENT_POSITIONS}
local b = 1
local i = 1
while i <= #V do
  local rev = ARGV[2 + tonumber(V[i])]
  local a = i + 2
  local opsEnd = a + tonumber(V[i + 1])
  i = opsEnd
  if rev ~= nil and rev ~= '0' then
  while a < opsEnd do
    local op = V[a]
    if op == 'ie' or op == 'pe' then
      local external = V[a + 1]
      local item = op == 'ie' and V[a + 4] == '1'
      local parentExternal = V[a + 3]
      local path, tail, index, parent
      if item then
        parent = resolve(b, parentExternal) or parentExternal
        tail = tailOf(b, parent)
        index = tonumber(string.sub(external, #parentExternal + 2, -2))
        if index and index < tail.count then path = resolve(b, external) end
      else
        path = resolve(b, external)
      end
      local old = path and redis.call('HGET', KEYS[b], path)
      local orderKey = ''
      if old then
        local _, _, k, p = string.find(old, '^%d*\\1([^\\1]*)\\1([^\\1]*)\\1')
        orderKey, parent = k, p
      elseif op == 'ie' then
        if item then
          local rank = tail.count
          orderKey = nextItemKey(b, tail)
          path = parent .. '[#' .. orderKey .. ']'
          if index == rank then tableOf(memos, b)[external] = path end
        else
          parent = resolve(b, parentExternal) or parentExternal
          orderKey = nextOrderKey(b)
          path = parent .. string.sub(external, #parentExternal + 1)
        end
        redis.call('ZADD', KEYS[b + 1], 0, parent .. '\\1' .. orderKey .. '\\1' .. path)
      else
        parent = ''
      end
      if path then redis.call('HSET', KEYS[b], path, rev .. '\\1' .. orderKey .. '\\1' .. parent .. '\\1' .. V[a + 2]) end
      if op == 'ie' then a = a + 5 else a = a + 3 end
    elseif op == 'de' then
      local path = resolve(b, V[a + 1])
      local old = path and redis.call('HGET', KEYS[b], path)
      if old then
        local _, _, orderKey, parent = string.find(old, '^%d*\\1([^\\1]*)\\1([^\\1]*)\\1')
        if orderKey ~= '' then redis.call('ZREM', KEYS[b + 1], parent .. '\\1' .. orderKey .. '\\1' .. path) end
        redis.call('HDEL', KEYS[b], path)
        if string.byte(path, -1) == 93 then forgetPositions(b) end
      end
      a = a + 2
    elseif op == 'te' then
      local path = resolve(b, V[a + 1])
      local old = path and redis.call('HGET', KEYS[b], path)
      if old then redis.call('HSET', KEYS[b], path, rev .. restOf(old)) end
      a = a + 2
    elseif op == 'dx' then
      redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3])
      counters[b] = 0
      forgetPositions(b)
      a = a + 1
    else
      return redis.error_reply('twinport commit: unknown content op ' .. tostring(op))
    end
  end
  end
end
for k, n in pairs(counters) do
  if n > 0 then redis.call('SET', KEYS[k + 2], n) end
end
redis.call('DEL', KEYS[4], KEYS[5])
return 1
`);

/** RELEASE drops the lock of a round that took no seq here (its catalog step failed or was fenced). */
const RELEASE = luaScript(`
if redis.call('HGET', KEYS[4], 't') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[4], KEYS[5])
return 1
`);

export const CONTENT_SCRIPTS = { prepare: PREPARE, apply: APPLY, release: RELEASE };
