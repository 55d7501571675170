import {
  batchIndexOf,
  type Commit,
  type CommitOp,
  type CommitResult,
  type IdentifiableKind,
  indexTermsOfJson,
} from "@twinport/shared";
import { idempotencyKey } from "./idempotency-redis.ts";
import { LUA_CATALOG_OPS } from "./lua-catalog-ops.ts";
import { LUA_ELEMENT_POSITIONS } from "./lua-element-positions.ts";
import { LUA_PATHS } from "./lua-paths.ts";
import { luaScript } from "./lua-script.ts";
import { LUA_TERM_INDEX } from "./lua-term-index.ts";
import { IDENTIFIABLE_KINDS, type RedisLayout } from "./redis-layout.ts";
import { STORE_LOST_REPLY } from "./store-incarnation.ts";

/**
 * The commit: ONE Lua script over declared KEYS, so checking and writing are one atomic step. One
 * call carries a batch of commits (group commit: one round trip and, with `appendfsync always`, one
 * fsync for all of them); each commit of the batch is checked and applied on its own, in order.
 *
 * KEYS: 1 seq, 2 kinds, 3 ordinal, 4 outbox, 5..10 rec/order of shell, submodel,
 *       concept-description, 11..16 their filter index terms/index (docs/adr/0035: kept in the
 *       same step as the record, from terms the encoder computed), 17 the store's incarnation
 *       (store-incarnation.ts), then, in the order the batch
 *       names them, 3 keys (el, order, ctr) per submodel and the key of each idempotency record a
 *       commit claims (ADR 0017). ARGV names either by its absolute KEYS index.
 * ARGV: 1 the incarnation the caller opened, 2 the number of commits, then per commit: the event draft as JSON text (stored as-is: Lua
 *       never decodes JSON, cjson would turn [] into {} and round numbers), the number of ARGV
 *       values its ops take, the number of preconditions, 4 values per precondition, then the ops,
 *       each a code followed by a fixed number of values. The script walks ARGV with a loop and never
 *       unpack()s it: Lua's stack holds ~8000 values, a commit can hold 100,000 ops.
 *       An expected revision `@j` is the seq that commit j (1-based) of this batch got.
 *
 * Element paths arrive external (`L[3].x`) and are resolved when each precondition or op applies
 * (lua-paths.ts): list items live under position tokens (`L[#<orderKey>]`, docs/adr/0020), so
 * deleting one item touches only its own records, and a new item is appended after its list's last.
 *
 * Records are packed (see redis-layout.ts); the script only ever looks at their prefix up to the
 * JSON. Returns one number per commit: its seq, or -(index + 1) of its failed precondition. A failed
 * check returns before the commit's first write, so it changes nothing and takes no seq.
 */
const SOURCE = `${LUA_PATHS}${LUA_TERM_INDEX}${LUA_CATALOG_OPS}
-- A submodel's keys: KEYS[b] (el), KEYS[b + 1] (order), KEYS[b + 2] (ctr), b as encodeCommits sent it.
local function sm(i) return tonumber(i) end

${LUA_ELEMENT_POSITIONS}
-- The element record the last precondition read (submodel index, internal path, record), so the
-- op that rewrites it right after does not read it again; any write forgets it.
local lastB, lastPath, lastRecord = nil, nil, nil
local function readElement(b, path)
  if b == lastB and path == lastPath and lastRecord then return lastRecord end
  return redis.call('HGET', KEYS[b], path)
end

-- Once per call, not per write (a call carries many): a Redis that lost the store's data lost its
-- incarnation too; writing into it would reuse revisions and seqs the caller's caches and every
-- subscriber still hold for the old data (store-incarnation.ts). Refused before any write.
if redis.call('GET', KEYS[17]) ~= ARGV[1] then
  return redis.error_reply('${STORE_LOST_REPLY} Redis does not hold the store incarnation this model-store opened: its data was lost or replaced')
end

local results = {}
local seqs = {}
local a = 3
for c = 1, tonumber(ARGV[2]) do
  lastB, lastPath, lastRecord = nil, nil, nil
  local event = ARGV[a]
  local opsEnd = a + 3 + tonumber(ARGV[a + 2]) * 4 + tonumber(ARGV[a + 1])
  local failed = nil
  a = a + 3
  for p = 1, tonumber(ARGV[a - 1]) do
    local t, x, y, z = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3]
    a = a + 4
    if failed == nil then
      local holds
      if t == 'f' then
        holds = redis.call('HEXISTS', KEYS[2], x) == 0
      elseif t == 'k' then
        -- idempotency-key-free: x = index of the record's key in KEYS (docs/adr/0017)
        holds = redis.call('EXISTS', KEYS[tonumber(x)]) == 0
      else
        local stored = false
        local orderKey = nil
        if t == 'i' then
          flushTouches()
          stored = redis.call('HGET', KEYS[KIND[x]], y)
        else
          -- 'e': an element; 'o': an element whose orderKey must match too (z = revision:orderKey)
          local b = sm(x)
          local internal = resolve(b, y)
          if internal then
            stored = redis.call('HGET', KEYS[b], internal)
            lastB, lastPath, lastRecord = b, internal, stored
          end
          if t == 'o' then
            local colon = string.find(z, ':', 1, true)
            orderKey = string.sub(z, colon + 1)
            z = string.sub(z, 1, colon - 1)
          end
        end
        if string.sub(z, 1, 1) == '@' then z = seqs[tonumber(string.sub(z, 2))] or 'failed' end
        if z == '' then holds = (stored == false) else holds = (stored ~= false and revOf(stored) == z) end
        if holds and orderKey ~= nil then
          local _, _, k = string.find(stored, '^%d*\\1([^\\1]*)\\1')
          holds = (k == orderKey)
        end
      end
      if not holds then failed = p end
    end
  end
  if failed ~= nil then
    results[c] = -failed
    a = opsEnd
  else
    -- INCR per commit, not one SET per call (docs/adr/0047): a script that raises half-way cannot
    -- leave the sequence behind the outbox stream, where every later XADD would be refused.
    local seq = redis.call('INCR', KEYS[1])
    local rev = string.format('%d', seq)
    seqs[c] = rev
    results[c] = seq
    -- The outbox entry goes first: should XADD refuse (a stream ahead of the sequence), no data is
    -- written; the touches of the commits before it still are.
    local added = redis.pcall('XADD', KEYS[4], rev .. '-0', 'seq', rev, 'event', event)
    if type(added) == 'table' and added.err then
      flushTouches()
      return added
    end
while a < opsEnd do
  local op = ARGV[a]
  if op == 'ie' or op == 'pe' then
    -- put-element: submodel, path, json [, parentPath, '1' for a list item or '']
    local b = sm(ARGV[a + 1])
    local external = ARGV[a + 2]
    local item = op == 'ie' and ARGV[a + 5] == '1'
    local parentExternal = ARGV[a + 4]
    local path, tail, index, parent
    if item then
      -- a list item at or past its list's end (a load, a POST: known from the list's tail) is new
      parent = resolve(b, parentExternal) or parentExternal
      tail = tailOf(b, parent)
      index = tonumber(string.sub(external, #parentExternal + 2, -2))
      if index and index < tail.count then path = resolve(b, external) end
    else
      path = resolve(b, external)
    end
    local old = path and readElement(b, path)
    local orderKey = ''
    if old then
      -- an existing element keeps its place
      local _, _, k, p = string.find(old, '^%d*\\1([^\\1]*)\\1([^\\1]*)\\1')
      orderKey, parent = k, p
    elseif op == 'ie' then
      if item then
        -- appended under its position token; its rank is the list's old length, so when that is
        -- the index it was named by, the next ops of a load find it (and its children) by memo
        local rank = tail.count
        orderKey = nextItemKey(b, tail)
        path = parent .. '[#' .. orderKey .. ']'
        if index == rank then memos[b][external] = path end
      else
        parent = resolve(b, parentExternal) or parentExternal
        orderKey = nextOrderKey(b)
        path = parent .. string.sub(external, #parentExternal + 1)
      end
      redis.call('ZADD', KEYS[b + 1], 0, parent .. '\\1' .. orderKey .. '\\1' .. path)
    else
      parent = ''
    end
    -- (a path past a list's end, not inserted, has nothing to be written under)
    if path then redis.call('HSET', KEYS[b], path, rev .. '\\1' .. orderKey .. '\\1' .. parent .. '\\1' .. ARGV[a + 3]) end
    if op == 'ie' then a = a + 6 else a = a + 4 end
  elseif op == 'de' then
    -- delete-element: submodel, path
    local b = sm(ARGV[a + 1])
    local path = resolve(b, ARGV[a + 2])
    local old = path and redis.call('HGET', KEYS[b], path)
    if old then
      local _, _, orderKey, parent = string.find(old, '^%d*\\1([^\\1]*)\\1([^\\1]*)\\1')
      if orderKey ~= '' then redis.call('ZREM', KEYS[b + 1], parent .. '\\1' .. orderKey .. '\\1' .. path) end
      redis.call('HDEL', KEYS[b], path)
      -- a list item gone shifts the ranks of the items after it
      if string.byte(path, -1) == 93 then forgetPositions(b) end
    end
    a = a + 3
  elseif op == 'te' then
    -- touch-element: submodel, path (only an existing element)
    local b = sm(ARGV[a + 1])
    local path = resolve(b, ARGV[a + 2])
    local old = path and readElement(b, path)
    if old then redis.call('HSET', KEYS[b], path, rev .. restOf(old)) end
    a = a + 3
  elseif op == 'pi' then
    -- put-identifiable: kind, id, json, index terms
    putIdentifiable(ARGV[a + 1], ARGV[a + 2], rev, ARGV[a + 3], ARGV[a + 4])
    a = a + 5
  elseif op == 'di' then
    -- delete-identifiable: kind, id, submodel index ('' unless a submodel: its elements go too)
    deleteIdentifiable(ARGV[a + 1], ARGV[a + 2])
    if ARGV[a + 3] ~= '' then
      local b = sm(ARGV[a + 3])
      -- UNLINK frees a large submodel's memory in the background instead of inside the script
      redis.call('UNLINK', KEYS[b], KEYS[b + 1], KEYS[b + 2])
      counters[b] = 0
      forgetPositions(b)
    end
    a = a + 4
  elseif op == 'ti' then
    -- touch-identifiable: kind, id
    touchIdentifiable(ARGV[a + 1], ARGV[a + 2], rev)
    a = a + 3
  elseif op == 'ik' then
    -- idempotency record: key index, fingerprint, ttl ms, time
    putIdempotency(ARGV[a + 1], ARGV[a + 2], rev, ARGV[a + 3], ARGV[a + 4], event)
    a = a + 5
  else
    flushTouches()
    return redis.error_reply('twinport commit: unknown op ' .. tostring(op))
  end
  lastB, lastPath, lastRecord = nil, nil, nil
end
  end
end
flushTouches()
for b, n in pairs(counters) do
  if n > 0 then redis.call('SET', KEYS[b + 2], n) end
end
return results
`;

const script = luaScript(SOURCE);

export interface EncodedCommit {
  keys: string[];
  args: (string | number)[];
}

/** One script call for `commits` (see SOURCE for the layout). */
export function encodeCommits(layout: RedisLayout, commits: readonly Commit[], incarnation: string): EncodedCommit {
  const keys = [layout.sequence, layout.kinds, layout.ordinal, layout.outbox];
  for (const kind of IDENTIFIABLE_KINDS) {
    const k = layout.identifiable(kind);
    keys.push(k.rec, k.order);
  }
  for (const kind of IDENTIFIABLE_KINDS) {
    const t = layout.termIndex(kind);
    keys.push(t.terms, t.index);
  }
  keys.push(layout.incarnation);
  // Every KEYS index sent is absolute (1-based, as Lua counts): submodels' key triples and
  // idempotency records are appended in the order the commits name them, interleaved, so a position
  // computed from a count of submodels alone would point into another key (it did: a keyed write in
  // a group with writes to two submodels wrote element records into the wrong keys).
  const submodelIndex = new Map<string, number>();
  const sm = (id: string): number => {
    let index = submodelIndex.get(id);
    if (index === undefined) {
      index = keys.length + 1;
      submodelIndex.set(id, index);
      const k = layout.submodel(id);
      keys.push(k.el, k.order, k.ctr);
    }
    return index;
  };
  const idempotencyIndex = new Map<string, number>();
  const idem = (key: string): number => {
    let index = idempotencyIndex.get(key);
    if (index === undefined) {
      keys.push(idempotencyKey(layout, key));
      index = keys.length;
      idempotencyIndex.set(key, index);
    }
    return index;
  };
  const args: (string | number)[] = [incarnation, commits.length];
  commits.forEach((commit, at) => {
    const revision = (value: number | null) => {
      if (value === null) return "";
      const index = batchIndexOf(value);
      if (index === undefined) return String(value);
      if (index >= at)
        throw new RangeError(
          `Commit ${at} of a batch names the revision of commit ${index}, which does not come before it`,
        );
      return `@${index + 1}`;
    };
    const head = args.length;
    args.push(JSON.stringify(commit.event), 0, commit.preconditions.length);
    for (const p of commit.preconditions) {
      if (p.on === "identifiable") args.push("i", kind(p.kind), p.id, revision(p.revision));
      else if (p.on === "id-free") args.push("f", p.id, "", "");
      else if (p.on === "idempotency-key-free") args.push("k", idem(p.key), "", "");
      else if (p.orderKey !== undefined && p.revision !== null)
        args.push("o", sm(p.submodelId), p.path, `${revision(p.revision)}:${p.orderKey}`);
      else args.push("e", sm(p.submodelId), p.path, revision(p.revision));
    }
    const opsStart = args.length;
    for (const op of commit.ops) encodeOp(op, args, sm);
    const claim = commit.idempotency;
    if (claim) args.push("ik", idem(claim.key), claim.fingerprint, Math.max(1, Math.ceil(claim.ttlMs)), Date.now());
    args[head + 1] = args.length - opsStart;
  });
  return { keys, args };
}

function kind(value: IdentifiableKind): IdentifiableKind {
  if (!IDENTIFIABLE_KINDS.includes(value)) throw new TypeError(`Unknown identifiable kind '${String(value)}'`);
  return value;
}

function encodeOp(op: CommitOp, args: (string | number)[], sm: (id: string) => number): void {
  switch (op.op) {
    case "put-identifiable":
      args.push("pi", kind(op.kind), op.id, op.json, indexTermsOfJson(op.kind, op.json).join("\0"));
      break;
    case "delete-identifiable":
      args.push("di", kind(op.kind), op.id, op.kind === "submodel" ? sm(op.id) : "");
      break;
    case "put-element":
      if (op.insert) {
        const index = op.insert.index;
        if (index !== undefined && !(Number.isSafeInteger(index) && index >= 0))
          throw new RangeError(`List index must be a non-negative integer, got ${index}`);
        args.push(
          "ie",
          sm(op.submodelId),
          op.path,
          op.json,
          op.insert.parentPath,
          op.insert.segment.startsWith("[") ? "1" : "",
        );
      } else {
        args.push("pe", sm(op.submodelId), op.path, op.json);
      }
      break;
    case "delete-element":
      args.push("de", sm(op.submodelId), op.path);
      break;
    case "touch-element":
      args.push("te", sm(op.submodelId), op.path);
      break;
    case "touch-identifiable":
      args.push("ti", kind(op.kind), op.id);
      break;
  }
}

/** A commit that cannot be encoded (a bad kind or list index): found before anything was sent. */
export class CommitEncodingError extends Error {
  override name = "CommitEncodingError";
}

/** Runs the batch as one script call; one result per commit, in order. */
export async function runCommits(
  redis: import("ioredis").Redis,
  layout: RedisLayout,
  commits: readonly Commit[],
  incarnation: string,
): Promise<CommitResult[]> {
  let encoded: EncodedCommit;
  try {
    encoded = encodeCommits(layout, commits, incarnation);
  } catch (error) {
    throw new CommitEncodingError((error as Error).message, { cause: error });
  }
  const { keys, args } = encoded;
  const outcomes = (await script.run(redis, keys, args, { unpipelined: true })) as number[];
  if (!Array.isArray(outcomes) || outcomes.length !== commits.length)
    throw new Error(`twinport commit: ${commits.length} commits sent, ${String(outcomes?.length)} results`);
  return outcomes.map((value, i) =>
    value > 0
      ? { ok: true, seq: value, event: { ...commits[i]!.event, seq: value, revision: value } }
      : { ok: false, failed: -value - 1 },
  );
}
