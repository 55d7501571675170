/**
 * Lua shared by the commit script and the element reads: external idShortPaths (`L[3].x`) to the
 * internal paths records are kept under (`L[#<orderKey>].x`, docs/adr/0020).
 *
 * `nthChild(order, parent, i)`: the children of P are the members of the `order` zset (all scores
 * 0) from `P\1` to `P\2`, so the first one's rank is the number of members below `P\1` (ZLEXCOUNT)
 * and the i-th one is ZRANGE by rank: both O(log n). (ZRANGEBYLEX … LIMIT i 1 would walk i members.)
 * A member is `<parent>\1<16-digit orderKey>\1<path>`.
 *
 * `resolvePath(order, path, memo)`: text up to each `[i]` is copied, `[i]` becomes the i-th child
 * of what was resolved so far; nil when an index is past its list's end, or when what was resolved
 * is no list (its children are not items). A path without `[` costs
 * nothing. `memo` (optional) remembers resolved prefixes `…[i]` within one script call: appends
 * never change an existing item's rank, and the commit script empties it when an item is deleted.
 */
export const LUA_PATHS = `
local function nthChild(order, parent, index)
  local prefix = parent .. '\\1'
  local first = redis.call('ZLEXCOUNT', order, '-', '(' .. prefix)
  local member = redis.call('ZRANGE', order, first + index, first + index)[1]
  if member == nil or string.sub(member, 1, #prefix) ~= prefix then return nil end
  local child = string.sub(member, #prefix + 18)
  -- Only a list's items are addressed by index: the children of a collection, an entity or an
  -- annotated relationship are idShorts, and 'C[0]' names nothing (404), not the first of them.
  if string.byte(child, #parent + 1) ~= 91 then return nil end
  return child
end
local function resolvePath(order, path, memo)
  local open = string.find(path, '[', 1, true)
  if not open then return path end
  local internal, at = '', 1
  while open do
    local close = string.find(path, ']', open + 1, true)
    if not close then return nil end
    local known = memo and memo[string.sub(path, 1, close)]
    if known then
      internal = known
    else
      internal = internal .. string.sub(path, at, open - 1)
      local index = tonumber(string.sub(path, open + 1, close - 1))
      if index == nil then return nil end
      internal = nthChild(order, internal, index)
      if internal == nil then return nil end
      if memo then memo[string.sub(path, 1, close)] = internal end
    end
    at = close + 1
    open = string.find(path, '[', at, true)
  end
  return internal .. string.sub(path, at)
end
-- The external path of a child met while walking parent's members in order (rank 0-based).
local function externalChild(parentExternal, parent, child, rank)
  if string.byte(child, #parent + 1) == 91 then return parentExternal .. '[' .. rank .. ']' end
  return parentExternal .. string.sub(child, #parent + 1)
end
`;
