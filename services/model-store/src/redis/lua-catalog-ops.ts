/**
 * Lua shared by the single-Redis commit script (commit-script.ts) and the cluster's catalog COMMIT
 * (cluster-catalog-script.ts, docs/adr/0040): how an identifiable, its touch, and an idempotency
 * record are written. Keep one copy, so both paths write the catalog the same way. Both scripts lay
 * out their first keys alike (redis-layout.ts): 1 seq, 2 kinds, 3 ordinal, 4 outbox, then rec and
 * order per kind (KIND), then terms and index per kind (KIND + TERMS). Needs LUA_TERM_INDEX
 * (`reindex`) before it.
 */
export const LUA_CATALOG_OPS = `
local KIND = { shell = 5, submodel = 7, ["concept-description"] = 9 }
-- a kind's filter index keys: terms at KIND + 6, index at KIND + 7
local TERMS = 6
local function revOf(record) return string.match(record, '^%d*') end
-- the record without its revision, from the first separator on
local function restOf(record)
  local at = string.find(record, '\\1', 1, true)
  return string.sub(record, at)
end

-- Touches of identifiables (a submodel's revision after a write below it) are applied once per
-- identifiable at the end of the batch, with the last revision: inside one script nobody sees the
-- ones in between, and a batch of value writes to one submodel rewrote its record once per write
-- (docs/adr/0039). Applied before anything that reads or replaces identifiable records.
local touchRev = {}
local touchOrder = {}
local function flushTouches()
  for _, t in ipairs(touchOrder) do
    local old = redis.call('HGET', KEYS[t[1]], t[2])
    if old then redis.call('HSET', KEYS[t[1]], t[2], touchRev[t[1]][t[2]] .. restOf(old)) end
  end
  touchRev = {}
  touchOrder = {}
end
-- touch-identifiable (only an existing one; applied by flushTouches)
local function touchIdentifiable(kind, id, rev)
  local k = KIND[kind]
  local revs = touchRev[k]
  if revs == nil then
    revs = {}
    touchRev[k] = revs
  end
  if revs[id] == nil then table.insert(touchOrder, { k, id }) end
  revs[id] = rev
end
-- put-identifiable (a new one is appended to its kind's order) with its index terms
local function putIdentifiable(kind, id, rev, json, terms)
  flushTouches()
  local k = KIND[kind]
  redis.call('HSET', KEYS[k], id, rev .. '\\1' .. json)
  local ordinal = redis.call('ZSCORE', KEYS[k + 1], id)
  local isNew = not ordinal
  if isNew then
    ordinal = redis.call('INCR', KEYS[3])
    redis.call('ZADD', KEYS[k + 1], ordinal, id)
  end
  reindex(KEYS[k + TERMS], KEYS[k + TERMS + 1], id, tonumber(ordinal), terms, isNew)
  redis.call('HSET', KEYS[2], id, kind)
end
-- delete-identifiable's catalog half (a submodel's elements are the including script's business)
local function deleteIdentifiable(kind, id)
  flushTouches()
  local k = KIND[kind]
  redis.call('HDEL', KEYS[k], id)
  local ordinal = redis.call('ZSCORE', KEYS[k + 1], id)
  if ordinal then reindex(KEYS[k + TERMS], KEYS[k + TERMS + 1], id, tonumber(ordinal), '', false) end
  redis.call('ZREM', KEYS[k + 1], id)
  if redis.call('HGET', KEYS[2], id) == kind then redis.call('HDEL', KEYS[2], id) end
end
-- idempotency record (docs/adr/0017): the key's index, fingerprint, ttl ms, time; e = the event draft
local function putIdempotency(keyIndex, fingerprint, rev, ttlMs, time, event)
  local k = KEYS[tonumber(keyIndex)]
  redis.call('HSET', k, 'f', fingerprint, 's', rev, 't', time, 'e', event)
  redis.call('PEXPIRE', k, ttlMs)
end
`;
