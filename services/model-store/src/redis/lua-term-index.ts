/**
 * Lua shared by the commit script and the index build (term-index-build.ts): keep one
 * identifiable's filter-index entries (docs/adr/0035, redis-layout.ts) equal to its terms.
 *
 * `terms` is the identifiable's index terms joined by "\0" (index-terms.ts: a term never holds
 * "\0"). The `:terms` hash remembers what each id was indexed under, so a rewrite that changed no
 * indexed field costs one HGET and a string compare, and only changed terms touch the sorted set.
 * A new identifiable (`isNew`: its ordinal was just drawn) has no entries yet: no HGET.
 */
export const LUA_TERM_INDEX = `
local function termSet(text)
  local set = {}
  for term in string.gmatch(text, '[^%z]+') do set[term] = true end
  return set
end
-- one call per 1,000 arguments (unpack has a stack limit, a shell may have many asset ids)
local function callChunked(command, key, args)
  for i = 1, #args, 1000 do
    redis.call(command, key, unpack(args, i, math.min(i + 999, #args)))
  end
end
local function reindex(termsKey, indexKey, id, ordinal, terms, isNew)
  if terms == '' and isNew then return end
  local suffix = '\\0' .. string.format('%016x', ordinal) .. id
  if isNew then
    -- the common case of a load: every term is added, nothing to compare
    local added = {}
    for term in string.gmatch(terms, '[^%z]+') do
      added[#added + 1] = 0
      added[#added + 1] = term .. suffix
    end
    callChunked('ZADD', indexKey, added)
    redis.call('HSET', termsKey, id, terms)
    return
  end
  local old = redis.call('HGET', termsKey, id) or ''
  if old == terms then return end
  local before, after = termSet(old), termSet(terms)
  local gone, added = {}, {}
  for term in pairs(before) do
    if not after[term] then gone[#gone + 1] = term .. suffix end
  end
  for term in pairs(after) do
    if not before[term] then
      added[#added + 1] = 0
      added[#added + 1] = term .. suffix
    end
  end
  callChunked('ZREM', indexKey, gone)
  callChunked('ZADD', indexKey, added)
  if terms == '' then redis.call('HDEL', termsKey, id) else redis.call('HSET', termsKey, id, terms) end
end
`;
