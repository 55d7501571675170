/**
 * Lua shared by the single-Redis commit script (commit-script.ts) and the cluster's APPLY
 * (cluster-content-script.ts, docs/adr/0040): where a new element goes among its siblings. Keep one
 * copy, so both paths place elements and list items the same way. Expects `KEYS[b + 1]` to be a
 * submodel's order set and `KEYS[b + 2]` its counter, and `resolvePath` from lua-paths.ts; the
 * counters are written back by the including script (`counters`).
 */
export const LUA_ELEMENT_POSITIONS = `
-- Per-submodel orderKey counters, kept here and written once at the end (one INCR per inserted
-- element would double the work of a large load).
local counters = {}
local function nextOrderKey(b)
  local n = counters[b]
  if n == nil then n = tonumber(redis.call('GET', KEYS[b + 2]) or '0') end
  n = n + 1
  counters[b] = n
  return string.format('%016x', n)
end
-- Resolved path prefixes per submodel (see lua-paths.ts), and per list its length and last
-- orderKey (so a load of 200,000 items asks the sorted set once, not per item); both are emptied
-- when a list item goes.
local memos = {}
local tails = {}
-- The per-submodel table of a table of tables (made on first use).
local function tableOf(tables, b)
  local t = tables[b]
  if t == nil then
    t = {}
    tables[b] = t
  end
  return t
end
local function resolve(b, path)
  return resolvePath(KEYS[b + 1], path, tableOf(memos, b))
end
local function tailOf(b, parent)
  local known = tableOf(tails, b)
  local tail = known[parent]
  if tail == nil then
    local last = redis.call('ZREVRANGEBYLEX', KEYS[b + 1], '(' .. parent .. '\\2', '[' .. parent .. '\\1', 'LIMIT', 0, 1)[1]
    tail = {
      count = redis.call('ZLEXCOUNT', KEYS[b + 1], '[' .. parent .. '\\1', '(' .. parent .. '\\2'),
      lastKey = last and string.sub(last, #parent + 2, #parent + 17) or '',
    }
    known[parent] = tail
  end
  return tail
end
local function forgetPositions(b)
  memos[b] = nil
  tails[b] = nil
end
-- A list item's orderKey sorts after the list's last item: a store written before ADR 0020 keyed
-- items by their index, which the counter knows nothing of.
local function nextItemKey(b, tail)
  local key = nextOrderKey(b)
  if tail.lastKey >= key then
    counters[b] = tonumber(tail.lastKey, 16) + 1
    key = string.format('%016x', counters[b])
  end
  tail.lastKey = key
  tail.count = tail.count + 1
  return key
end
`;
