import { CommandError, type RepositoryPage, type StoredElement } from "@twinport/shared";
import type { Redis } from "ioredis";
import { luaScript } from "./lua-script.ts";
import { redisCall } from "./redis-errors.ts";
import { unpackElement, type SubmodelKeys } from "./redis-layout.ts";

/**
 * Element reads. Each costs in proportion to what it returns, never to the submodel's size (except
 * the whole-submodel read, which is exactly that). A record's JSON and revision are one packed
 * value, so they always belong to the same commit.
 */

export function encodeCursor(text: string): string {
  return Buffer.from(text, "utf8").toString("base64url");
}

export function decodeCursor(cursor: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(cursor)) throw new CommandError("bad-request", `Invalid cursor '${cursor}'`);
  return Buffer.from(cursor, "base64url").toString("utf8");
}

function toStored(path: string, value: string): StoredElement {
  const { json, revision, orderKey } = unpackElement(value);
  return { path, json, revision, orderKey };
}

/** One HMGET: one round trip, whatever the submodel's size. */
export async function getElements(redis: Redis, keys: SubmodelKeys, paths: string[]): Promise<(StoredElement | undefined)[]> {
  if (paths.length === 0) return [];
  const values = await redisCall(redis.hmget(keys.el, ...paths));
  return paths.map((path, i) => (values[i] === null ? undefined : toStored(path, values[i]!)));
}

/** ZRANGEBYLEX over the parent's members from the cursor on, then one HMGET of those children. */
export async function listChildren(
  redis: Redis,
  keys: SubmodelKeys,
  parentPath: string,
  page: { cursor?: string; limit: number },
): Promise<RepositoryPage<StoredElement>> {
  const limit = Math.max(page.limit, 0);
  if (limit === 0) return { items: [] };
  const prefix = `${parentPath}\x01`;
  const start = page.cursor === undefined ? `[${prefix}` : `(${prefix}${decodeCursor(page.cursor)}`;
  // limit + 1 tells whether another page follows, so the last page has no cursor.
  const members = await redisCall(redis.zrangebylex(keys.order, start, `(${parentPath}\x02`, "LIMIT", 0, limit + 1));
  const sortKeys = members.slice(0, limit).map((m) => m.slice(prefix.length));
  const items: StoredElement[] = [];
  if (sortKeys.length > 0) {
    const paths = sortKeys.map((k) => k.slice(17));
    const values = await redisCall(redis.hmget(keys.el, ...paths));
    // Deleted since the first read: skipped, but the cursor still moves past it.
    paths.forEach((path, i) => values[i] !== null && items.push(toStored(path, values[i]!)));
  }
  if (members.length <= limit) return { items };
  return { items, cursor: encodeCursor(sortKeys[sortKeys.length - 1]) };
}

/**
 * A subtree below one element (or the root with a depth limit), walked depth-first inside Redis:
 * one round trip, atomic, and the work is proportional to the records returned.
 * KEYS: el, order. ARGV: path ('' = root), maxDepth ('' = unlimited).
 * Returns a flat array path, record, path, record, ... in document order.
 */
const SUBTREE = luaScript(`
local out, n = {}, 0
local maxDepth = tonumber(ARGV[2])
local stack, top = {}, 0
local function pushChildren(parent, depth)
  if maxDepth and depth > maxDepth then return end
  local members = redis.call('ZRANGEBYLEX', KEYS[2], '[' .. parent .. '\\1', '(' .. parent .. '\\2')
  local skip = #parent + 18 -- parent, separator, 16-digit orderKey, separator
  for i = #members, 1, -1 do
    top = top + 1
    stack[top] = { string.sub(members[i], skip + 1), depth }
  end
end
if ARGV[1] == '' then
  pushChildren('', 1)
else
  top = 1
  stack[1] = { ARGV[1], 0 }
end
while top > 0 do
  local node = stack[top]
  stack[top] = nil
  top = top - 1
  local record = redis.call('HGET', KEYS[1], node[1])
  if record then
    out[n + 1] = node[1]
    out[n + 2] = record
    n = n + 2
    pushChildren(node[1], node[2] + 1)
  end
end
return out
`);

export async function getSubtree(redis: Redis, keys: SubmodelKeys, path: string, maxDepth?: number): Promise<StoredElement[]> {
  if (path === "" && maxDepth === undefined) return await getWholeSubmodel(redis, keys);
  if (path === "" && maxDepth !== undefined && maxDepth <= 0) return [];
  const flat = (await redisCall(SUBTREE.run(redis, [keys.el, keys.order], [path, maxDepth === undefined ? "" : Math.max(0, maxDepth)]))) as string[];
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
  for (const siblings of children.values()) siblings.sort((x, y) => (x.sortKey < y.sortKey ? -1 : x.sortKey > y.sortKey ? 1 : 0));

  const result: StoredElement[] = [];
  const stack = [...(children.get("") ?? [])].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    result.push(records.get(node.path)!);
    const below = children.get(node.path);
    if (below) for (let i = below.length - 1; i >= 0; i--) stack.push(below[i]);
  }
  return result;
}
