/**
 * Lua shared by the commit script and the index build (term-index-build.ts): keep one
 * identifiable's filter-index entries (docs/adr/0035, redis-layout.ts) equal to its terms.
 *
 * `terms` is the identifiable's index terms joined by "\0" (index-terms.ts: a term never holds
 * "\0"). The `:terms` hash remembers what each id was indexed under, so a rewrite that changed no
 * indexed field costs one HGET and a string compare, and only changed terms touch the sorted set.
 */
export const LUA_TERM_INDEX = `
local function termSet(text)
  local set = {}
  for term in string.gmatch(text, '[^%z]+') do set[term] = true end
  return set
end
local function reindex(termsKey, indexKey, id, ordinal, terms)
  local old = redis.call('HGET', termsKey, id)
  if old == false then old = '' end
  if old == terms then return end
  local suffix = '\\0' .. string.format('%016x', ordinal) .. id
  local before, after = termSet(old), termSet(terms)
  for term in pairs(before) do
    if not after[term] then redis.call('ZREM', indexKey, term .. suffix) end
  end
  for term in pairs(after) do
    if not before[term] then redis.call('ZADD', indexKey, 0, term .. suffix) end
  end
  if terms == '' then redis.call('HDEL', termsKey, id) else redis.call('HSET', termsKey, id, terms) end
end
`;
