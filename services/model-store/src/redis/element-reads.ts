import {
  CommandError,
  childCursor,
  externalChildPath,
  type RepositoryPage,
  type StoredElement,
  sortKeyOfCursor,
} from "@twinport/shared";
import type { Redis } from "ioredis";
import { LUA_PATHS } from "./lua-paths.ts";
import { luaScript } from "./lua-script.ts";
import { redisCall } from "./redis-errors.ts";
import { type SubmodelKeys, unpackElement } from "./redis-layout.ts";

/**
 * Element reads. Each costs in proportion to what it returns, never to the submodel's size (except
 * the whole-submodel read, which is exactly that). A record's JSON and revision are one packed
 * value, so they always belong to the same commit.
 *
 * Paths in and out are external (`L[3].x`); records are kept under internal paths (list items under
 * position tokens, docs/adr/0020). A path with an index is resolved inside a script (one round
 * trip, atomic with the read); a path without one is its own internal path (plain HMGET).
 */

function toStored(path: string, value: string): StoredElement {
  const { json, revision, orderKey } = unpackElement(value);
  return { path, json, revision, orderKey };
}

/** KEYS: el, order. ARGV: external paths. Returns each one's record, or false. */
const GET_RESOLVED = luaScript(`${LUA_PATHS}
local out = {}
for i = 1, #ARGV do
  local internal = resolvePath(KEYS[2], ARGV[i], nil)
  out[i] = internal and redis.call('HGET', KEYS[1], internal) or false
end
return out
`);

/** One round trip, whatever the submodel's size: HMGET, or a script when a path has an index. */
export async function getElements(
  redis: Redis,
  keys: SubmodelKeys,
  paths: string[],
): Promise<(StoredElement | undefined)[]> {
  if (paths.length === 0) return [];
  const values = paths.some((p) => p.includes("["))
    ? ((await redisCall(GET_RESOLVED.run(redis, [keys.el, keys.order], paths))) as (string | null)[])
    : await redisCall(redis.hmget(keys.el, ...paths));
  return paths.map((path, i) => (typeof values[i] === "string" ? toStored(path, values[i]!) : undefined));
}

/** KEYS: order. ARGV: parent's external path. The number of its children (0 if it does not resolve). */
const COUNT_CHILDREN = luaScript(`${LUA_PATHS}
local parent = resolvePath(KEYS[1], ARGV[1], nil)
if not parent then return 0 end
return redis.call('ZLEXCOUNT', KEYS[1], '[' .. parent .. '\\1', '(' .. parent .. '\\2')
`);

export async function countChildren(redis: Redis, keys: SubmodelKeys, parentPath: string): Promise<number> {
  if (!parentPath.includes("["))
    return await redisCall(redis.zlexcount(keys.order, `[${parentPath}\x01`, `(${parentPath}\x02`));
  return Number(await redisCall(COUNT_CHILDREN.run(redis, [keys.order], [parentPath])));
}

/**
 * One page of children, in one script: resolve the parent, ZRANGEBYLEX from the cursor on, the
 * rank of the page's first child (its list index: ZLEXCOUNT up to the cursor, O(log n)), HGET each.
 * KEYS: el, order. ARGV: parent's external path, cursor sort key ('' = from the start), limit.
 * Returns { rank of the first, internal parent, more ('1'/''), sortKey, record, sortKey, record, … }
 * (a record deleted between the two reads cannot happen: the script is atomic).
 */
const LIST_CHILDREN = luaScript(`${LUA_PATHS}
local parent = resolvePath(KEYS[2], ARGV[1], nil)
if not parent then return { 0, '', '' } end
local prefix = parent .. '\\1'
local limit = tonumber(ARGV[3])
local start, rank = '[' .. prefix, 0
if ARGV[2] ~= '' then
  start = '(' .. prefix .. ARGV[2]
  rank = redis.call('ZLEXCOUNT', KEYS[2], '[' .. prefix, '[' .. prefix .. ARGV[2])
end
local members = redis.call('ZRANGEBYLEX', KEYS[2], start, '(' .. parent .. '\\2', 'LIMIT', 0, limit + 1)
local out = { rank, parent, #members > limit and '1' or '' }
for i = 1, math.min(#members, limit) do
  local sortKey = string.sub(members[i], #prefix + 1)
  out[#out + 1] = sortKey
  out[#out + 1] = redis.call('HGET', KEYS[1], string.sub(sortKey, 18)) or ''
end
return out
`);

export async function listChildren(
  redis: Redis,
  submodelId: string,
  keys: SubmodelKeys,
  parentPath: string,
  page: { cursor?: string; limit: number },
): Promise<RepositoryPage<StoredElement>> {
  const limit = Math.max(page.limit, 0);
  if (limit === 0) return { items: [] };
  const cursor = page.cursor === undefined ? "" : sortKeyOfCursor(submodelId, parentPath, page.cursor);
  const flat = (await redisCall(LIST_CHILDREN.run(redis, [keys.el, keys.order], [parentPath, cursor, limit]))) as (
    | string
    | number
  )[];
  const [rank, parentInternal, more] = [Number(flat[0]), String(flat[1]), flat[2] === "1"];
  const items: StoredElement[] = [];
  let last = "";
  for (let i = 3; i < flat.length; i += 2) {
    last = String(flat[i]);
    const value = String(flat[i + 1]);
    if (value === "") continue; // a member without a record: skipped, the cursor still moves past it
    items.push(toStored(externalChildPath(parentPath, parentInternal, last.slice(17), rank + (i - 3) / 2), value));
  }
  if (!more) return { items };
  return { items, cursor: childCursor(submodelId, parentPath, last) };
}

/**
 * A subtree below one element (or the root with a depth limit), walked depth-first inside Redis:
 * one round trip, atomic, and the work is proportional to the records returned. External paths are
 * built while walking (a list item's index is its position among its siblings).
 * KEYS: el, order. ARGV: external path ('' = root), maxDepth ('' = unlimited).
 * Returns a flat array path, record, path, record, ... in document order.
 */
const SUBTREE = luaScript(`${LUA_PATHS}
local out, n = {}, 0
local maxDepth = tonumber(ARGV[2])
local stack, top = {}, 0
local function pushChildren(parent, external, depth)
  if maxDepth and depth > maxDepth then return end
  local members = redis.call('ZRANGEBYLEX', KEYS[2], '[' .. parent .. '\\1', '(' .. parent .. '\\2')
  local skip = #parent + 18 -- parent, separator, 16-digit orderKey, separator
  for i = #members, 1, -1 do
    local child = string.sub(members[i], skip + 1)
    top = top + 1
    stack[top] = { child, externalChild(external, parent, child, i - 1), depth }
  end
end
if ARGV[1] == '' then
  pushChildren('', '', 1)
else
  local internal = resolvePath(KEYS[2], ARGV[1], nil)
  if internal then
    top = 1
    stack[1] = { internal, ARGV[1], 0 }
  end
end
while top > 0 do
  local node = stack[top]
  stack[top] = nil
  top = top - 1
  local record = redis.call('HGET', KEYS[1], node[1])
  if record then
    out[n + 1] = node[2]
    out[n + 2] = record
    n = n + 2
    pushChildren(node[1], node[2], node[3] + 1)
  end
end
return out
`);

export async function getSubtree(
  redis: Redis,
  keys: SubmodelKeys,
  path: string,
  maxDepth?: number,
): Promise<StoredElement[]> {
  if (path === "" && maxDepth === undefined) return await getWholeSubmodel(redis, keys);
  if (path === "" && maxDepth !== undefined && maxDepth <= 0) return [];
  const flat = (await redisCall(
    SUBTREE.run(redis, [keys.el, keys.order], [path, maxDepth === undefined ? "" : Math.max(0, maxDepth)]),
  )) as string[];
  const records: StoredElement[] = [];
  for (let i = 0; i < flat.length; i += 2) records.push(toStored(flat[i], flat[i + 1]));
  return records;
}

/**
 * Every element of a submodel: ONE HGETALL (one round trip); the document order comes from the
 * parent path and orderKey inside each record.
 */
async function getWholeSubmodel(redis: Redis, keys: SubmodelKeys): Promise<StoredElement[]> {
  const flat = (await redisCall(redis.call("HGETALL", keys.el))) as string[];
  const records = new Map<string, StoredElement>();
  const children = new Map<string, { sortKey: string; path: string }[]>();
  for (let i = 0; i < flat.length; i += 2) {
    const path = flat[i];
    const { json, revision, orderKey, parentPath } = unpackElement(flat[i + 1]);
    records.set(path, { path, json, revision, orderKey });
    if (orderKey === "") continue; // never inserted into a parent: not part of the tree
    let siblings = children.get(parentPath);
    if (!siblings) children.set(parentPath, (siblings = []));
    siblings.push({ sortKey: `${orderKey}\x01${path}`, path });
  }
  for (const siblings of children.values())
    siblings.sort((x, y) => (x.sortKey < y.sortKey ? -1 : x.sortKey > y.sortKey ? 1 : 0));

  // Walk in document order; records are keyed by internal path, answers carry external ones.
  const result: StoredElement[] = [];
  const stack: { internal: string; external: string }[] = [];
  const pushChildren = (internal: string, external: string) => {
    const below = children.get(internal);
    if (below)
      for (let i = below.length - 1; i >= 0; i--)
        stack.push({ internal: below[i].path, external: externalChildPath(external, internal, below[i].path, i) });
  };
  pushChildren("", "");
  while (stack.length > 0) {
    const node = stack.pop()!;
    result.push({ ...records.get(node.internal)!, path: node.external });
    pushChildren(node.internal, node.external);
  }
  return result;
}
