import { createHash, randomBytes } from "node:crypto";
import {
  checkFilePath,
  type FileInfo,
  type FileOwner,
  type FileStore,
  type HoldOutcome,
  type ReleaseOutcome,
  type StoredFile,
} from "@twinport/shared";
import type { Redis } from "ioredis";
import { luaScript } from "./lua-script.ts";
import { removeOrphanBlobs } from "./orphan-blobs.ts";
import { closeRedis, createClusterClient, createRedisClient, firstConnection, scanTargets } from "./redis-client.ts";
import { redisCall } from "./redis-errors.ts";
import { DEFAULT_COMMAND_TIMEOUT_MS } from "./redis-repository.ts";

/**
 * FileStorageRedis: files in the store's Redis, under the same `{<prefix>}` hash tag as the model
 * (one slot, so Redis Cluster runs the scripts too).
 *
 *   {tp}:files            hash    path → `<blob id>\x01<size>\x01<chunk count>\x01<content type>`
 *   {tp}:file:<blob id>   hash    "0", "1", … → the bytes, CHUNK_BYTES per field
 *   {tp}:file-holds       hash    path → JSON {"d": sha256 of the bytes, "h": [holder, …]} (FileStore.hold)
 *
 * Large values are split so no single command moves more than a chunk (the fail-fast connection
 * has a command timeout) and Redis never holds one huge string. A put writes a fresh blob (with
 * an expiry, so a writer that dies midway leaves nothing behind for long), then one script points
 * the path at it and removes the expiry; the old blob is deleted afterwards. A reader that loses
 * the race to that deletion re-reads the index and gets the new version: old or new, never a mix.
 */
export interface RedisFileStoreOptions {
  url: string;
  /** Key prefix and hash tag, the persistence's `keyPrefix` ("tp" by default). */
  keyPrefix?: string;
  commandTimeoutMs?: number;
  /** Bytes per chunk; default 512 KiB. */
  chunkBytes?: number;
  /** A Redis Cluster instead of `url` (docs/redis-cluster.md): the files stay in the store's hash tag. */
  cluster?: { nodes: readonly string[] };
}

const DEFAULT_CHUNK_BYTES = 512 * 1024;
/** A blob that was never linked (its writer died) disappears after this. */
const UNLINKED_BLOB_TTL_MS = 60 * 60 * 1000;
/** Chunks fetched per command while reading. */
const CHUNKS_PER_READ = 4;
const READ_ATTEMPTS = 5;

// KEYS: index, new blob, holds. ARGV: path, packed entry. Returns the entry it replaced (or nil);
// the holders of what it replaced go with it.
const LINK = luaScript(`
local old = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PERSIST', KEYS[2])
redis.call('HDEL', KEYS[3], ARGV[1])
return old
`);

// KEYS: index, new blob. ARGV: path, packed entry. Links only a free path: 1 when linked, else 0.
const LINK_NEW = luaScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PERSIST', KEYS[2])
return 1
`);

// KEYS: index, holds. ARGV: path. Returns the entry it removed (or nil), and drops its holders.
const UNLINK = luaScript(`
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then redis.call('HDEL', KEYS[1], ARGV[1]) end
redis.call('HDEL', KEYS[2], ARGV[1])
return old
`);

/**
 * Lua that adds a holder to the file at ARGV[1] when its holders' digest is the one given, and
 * answers 'shared'; `otherwise` when the file has no holders or other bytes. HOLD and SHARE both
 * end with it, each with its own KEYS/ARGV positions.
 */
const joinHolders = (holds: string, holder: string, digest: string, otherwise: string) => `
local held = redis.call('HGET', ${holds}, ARGV[1])
if not held then return ${otherwise} end
local holds = cjson.decode(held)
if holds.d ~= ${digest} then return ${otherwise} end
for _, holder in ipairs(holds.h) do
  if holder == ${holder} then return 'shared' end
end
table.insert(holds.h, ${holder})
redis.call('HSET', ${holds}, ARGV[1], cjson.encode(holds))
return 'shared'
`;

// One script each, so a release's "last holder?" and its delete, and a hold's "shared by holders,
// same bytes?" and its addition, are one step each: two replicas releasing and sharing one file
// (a package deleted while another with the same file is posted) never interleave them.
// KEYS: index, new blob, holds. ARGV: path, packed entry, holder, digest of the bytes.
const HOLD = luaScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('PERSIST', KEYS[2])
  redis.call('HSET', KEYS[3], ARGV[1], cjson.encode({d = ARGV[4], h = {ARGV[3]}}))
  return 'created'
end
${joinHolders("KEYS[3]", "ARGV[3]", "ARGV[4]", "'taken'")}`);

// The sharing half of HOLD alone, before any bytes are written: KEYS index, holds. ARGV: path,
// holder, digest. 'shared' when the file there has holders and the same bytes (the holder added),
// else nil and the caller holds the whole way (a package re-posted wrote its 6 MB manual to Redis,
// fsync and all, only to find it shared and delete it again).
const SHARE = luaScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return nil end
${joinHolders("KEYS[2]", "ARGV[2]", "ARGV[3]", "nil")}`);

// KEYS: index, holds. ARGV: path, holder. Returns {outcome, the entry it removed (on 'deleted')}.
const RELEASE = luaScript(`
local held = redis.call('HGET', KEYS[2], ARGV[1])
if not held then
  if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return {'unheld'} end
  return {'absent'}
end
local holds = cjson.decode(held)
local rest = {}
for _, holder in ipairs(holds.h) do
  if holder ~= ARGV[2] then table.insert(rest, holder) end
end
if #rest > 0 then
  holds.h = rest
  redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(holds))
  return {'kept'}
end
redis.call('HDEL', KEYS[2], ARGV[1])
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then redis.call('HDEL', KEYS[1], ARGV[1]) end
return {'deleted', old}
`);

interface Entry {
  blob: string;
  size: number;
  chunks: number;
  contentType: string;
  owner?: FileOwner;
}

// The owner (StoredFile.owner) follows the content type after \x02 as JSON: a content type never
// holds a control character, and entries written before owners existed simply have none.
function pack(entry: Entry): string {
  const owner = entry.owner ? `\x02${JSON.stringify(entry.owner)}` : "";
  return `${entry.blob}\x01${entry.size}\x01${entry.chunks}\x01${entry.contentType}${owner}`;
}

function unpack(value: string): Entry {
  const ownerAt = value.indexOf("\x02");
  const main = ownerAt < 0 ? value : value.slice(0, ownerAt);
  const [blob, size, chunks, ...rest] = main.split("\x01");
  const entry: Entry = { blob: blob!, size: Number(size), chunks: Number(chunks), contentType: rest.join("\x01") };
  if (ownerAt >= 0) entry.owner = JSON.parse(value.slice(ownerAt + 1)) as FileOwner;
  return entry;
}

export async function createRedisFileStore(options: RedisFileStoreOptions): Promise<FileStore> {
  const prefix = options.keyPrefix ?? "tp";
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const settings = { commandTimeoutMs, connectionName: `twinport-files-${prefix}` };
  const redis = options.cluster
    ? createClusterClient(options.cluster.nodes, settings)
    : createRedisClient(options.url, settings);
  await firstConnection(redis, commandTimeoutMs);
  const index = `{${prefix}}:files`;
  const holds = `{${prefix}}:file-holds`;
  const blobKey = (blob: string) => `{${prefix}}:file:${blob}`;
  const blobPattern = `{${prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}}:file:*`;

  // What a process killed between unlinking a blob and deleting its bytes left (orphan-blobs.ts);
  // in the background, as a start need not wait, and a Redis that fails now is retried by nobody:
  // the next start sweeps again.
  void removeOrphanBlobs(redis, blobPattern, async () => {
    const linked = new Set<string>();
    for (const packed of Object.values(await scanPrefix(""))) linked.add(blobKey(unpack(packed).blob));
    return linked;
  }).catch(() => {});

  async function deleteBlob(packed: unknown): Promise<void> {
    if (typeof packed === "string") await redisCall(redis.unlink(blobKey(unpack(packed).blob)));
  }

  /**
   * The index entries under a prefix, read in steps (HSCAN with a MATCH): the package sweep asks
   * every minute in every engine for its few intents, and an HGETALL of an index of 100,000 files
   * held Redis for the whole reply each time. A field seen twice (a rehash meanwhile) counts once.
   */
  async function scanPrefix(prefixOfPath: string): Promise<Record<string, string>> {
    const match = `${prefixOfPath.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;
    const entries: Record<string, string> = {};
    let cursor = "0";
    do {
      const [next, flat] = await redisCall(redis.hscan(index, cursor, "MATCH", match, "COUNT", 1000));
      for (let i = 0; i < flat.length; i += 2) entries[flat[i]!] = flat[i + 1]!;
      cursor = next;
    } while (cursor !== "0");
    return entries;
  }

  /** Writes a fresh blob, then `link` points the path at it (answers whether it did). */
  async function writeBlob(
    path: string,
    file: StoredFile,
    link: (keys: string[], args: string[]) => Promise<boolean>,
  ): Promise<boolean> {
    checkFilePath(path);
    const blob = randomBytes(12).toString("hex");
    const key = blobKey(blob);
    const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.length);
    const chunks = Math.ceil(bytes.length / chunkBytes);
    let linked = false;
    try {
      // Created with an expiry first, so even a blob of 0 chunks is one key the link can persist.
      await redisCall(redis.hset(key, "size", String(bytes.length)));
      await redisCall(redis.pexpire(key, UNLINKED_BLOB_TTL_MS));
      for (let i = 0; i < chunks; i++)
        await redisCall(redis.hset(key, String(i), bytes.subarray(i * chunkBytes, (i + 1) * chunkBytes)));
      const entry = pack({
        blob,
        size: bytes.length,
        chunks,
        contentType: file.contentType,
        ...(file.owner ? { owner: file.owner } : {}),
      });
      linked = await link([index, key], [path, entry]);
      return linked;
    } finally {
      if (!linked) await redis.unlink(key).catch(() => undefined);
    }
  }

  return {
    async put(path, file) {
      let replaced: unknown;
      await writeBlob(path, file, async (keys, args) => {
        replaced = await redisCall(LINK.run(redis, [...keys, holds], args));
        return true;
      });
      await deleteBlob(replaced);
    },

    async create(path, file) {
      return await writeBlob(
        path,
        file,
        async (keys, args) => (await redisCall(LINK_NEW.run(redis, keys, args))) === 1,
      );
    },

    async hold(path, holder, file) {
      checkFilePath(path);
      const digest = createHash("sha256").update(file.bytes).digest("hex");
      if ((await redisCall(SHARE.run(redis, [index, holds], [path, holder, digest]))) === "shared") return "shared";
      let outcome: HoldOutcome = "taken";
      await writeBlob(path, file, async (keys, args) => {
        outcome = (await redisCall(HOLD.run(redis, [...keys, holds], [...args, holder, digest]))) as HoldOutcome;
        return outcome === "created";
      });
      return outcome;
    },

    async release(path, holder) {
      checkFilePath(path);
      const [outcome, removed] = (await redisCall(RELEASE.run(redis, [index, holds], [path, holder]))) as [
        ReleaseOutcome,
        unknown,
      ];
      await deleteBlob(removed);
      return outcome;
    },

    async get(path) {
      checkFilePath(path);
      for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
        const packed = await redisCall(redis.hget(index, path));
        if (packed === null) return undefined;
        const entry = unpack(packed);
        const bytes = await readBlob(redis, blobKey(entry.blob), entry);
        if (bytes) return { contentType: entry.contentType, bytes, ...(entry.owner ? { owner: entry.owner } : {}) };
        // The blob was replaced while we read it: the index already names the new one.
      }
      throw new Error(`The file '${path}' kept changing while it was read`);
    },

    async delete(path) {
      checkFilePath(path);
      const removed = await redisCall(UNLINK.run(redis, [index, holds], [path]));
      await deleteBlob(removed);
      return typeof removed === "string";
    },

    async list(prefixOfPath = "") {
      const entries = prefixOfPath === "" ? await redisCall(redis.hgetall(index)) : await scanPrefix(prefixOfPath);
      const found: FileInfo[] = [];
      for (const [path, packed] of Object.entries(entries)) {
        if (!path.startsWith(prefixOfPath)) continue;
        const entry = unpack(packed);
        found.push({ path, contentType: entry.contentType, size: entry.size });
      }
      return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },

    async clear() {
      await redisCall(redis.unlink(index, holds));
      // SCAN sees one node: on a cluster, the blobs (all in the one hash tag) are on one of the masters.
      for (const node of scanTargets(redis)) {
        let cursor = "0";
        do {
          const [next, keys] = await redisCall(node.scan(cursor, "MATCH", blobPattern, "COUNT", 1000));
          cursor = next;
          if (keys.length > 0) await redisCall(redis.unlink(...keys));
        } while (cursor !== "0");
      }
    },

    async close() {
      await closeRedis(redis);
    },
  };
}

/** The blob's bytes, or undefined when a chunk is gone (the blob was replaced meanwhile). */
async function readBlob(redis: Redis, key: string, entry: Entry): Promise<Uint8Array | undefined> {
  const whole = Buffer.allocUnsafe(entry.size);
  let offset = 0;
  for (let start = 0; start < entry.chunks; start += CHUNKS_PER_READ) {
    const fields = [];
    for (let i = start; i < Math.min(entry.chunks, start + CHUNKS_PER_READ); i++) fields.push(String(i));
    const chunks = await redisCall(redis.hmgetBuffer(key, ...fields));
    for (const chunk of chunks) {
      if (chunk === null || offset + chunk.length > entry.size) return undefined;
      chunk.copy(whole, offset);
      offset += chunk.length;
    }
  }
  if (offset !== entry.size) return undefined;
  if (entry.chunks === 0 && (await redisCall(redis.exists(key))) === 0) return undefined;
  return new Uint8Array(whole.buffer, whole.byteOffset, whole.length);
}
