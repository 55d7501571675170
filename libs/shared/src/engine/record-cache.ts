import { splitParent } from "../aas/index.ts";
import { DelegatingRepository } from "./delegating-repository.ts";
import type { Commit, Repository, StoredElement } from "./ports/index.ts";

/**
 * Element records a model-store replica read or wrote lately, for PLANNING value writes only: a
 * hot Property's next write is planned without a Redis round trip (which, with `appendfsync
 * always`, waits behind an fsync like the commit itself). Never a source of answers: every commit
 * compare-and-sets the revisions its plan read, so a stale record (another replica wrote, /reset)
 * makes the commit fail and the write is planned again from fresh reads; a plan that failed on a
 * cached record (not found, If-Match) is also planned again fresh before anyone is answered.
 */
export interface RecordCache {
  /** A view for one plan: its `reads` answer cached records; `usedCache` tells whether any were. */
  view(repository: Repository): { reads: Repository; usedCache(): boolean; forget(): void };
  /** After a commit: what it wrote is what the cache now knows. */
  committed(commit: Commit, seq: number): void;
  /** A commit failed its compare-and-set: drop everything it named. */
  failed(commit: Commit): void;
  clear(): void;
  readonly size: number;
  /** What the kept records count as against the byte budget. */
  readonly bytes: number;
}

const key = (submodelId: string, path: string) => `${submodelId}\u0000${path}`;

/** Point reads answered from the cache when every asked record is in it; misses fill it. */
class CachedReads extends DelegatingRepository {
  constructor(
    base: Repository,
    private readonly records: Map<string, StoredElement>,
    private readonly hits: string[],
    private readonly remember: (k: string, record: StoredElement) => void,
    private readonly drop: (k: string) => void,
  ) {
    super(base);
  }
  override async getElements(submodelId: string, paths: string[]) {
    const cached = paths.map((p) => this.records.get(key(submodelId, p)));
    if (cached.every((r) => r !== undefined)) {
      for (const p of paths) this.hits.push(key(submodelId, p));
      return cached.map((r) => ({ ...r! }));
    }
    const fresh = await this.base.getElements(submodelId, paths);
    fresh.forEach((r, i) =>
      r ? this.remember(key(submodelId, paths[i]!), { ...r }) : this.drop(key(submodelId, paths[i]!)),
    );
    return fresh;
  }
}

/** What a record is counted as: its key and JSON (one byte per char for the usual Latin text) plus the Map's own share. */
const ENTRY_OVERHEAD = 96;
const footprint = (k: string, record: StoredElement) =>
  k.length + record.json.length + record.path.length + record.orderKey.length + ENTRY_OVERHEAD;

/** Default byte budget: 10,000 typical Properties take ~3 MB, so only large records make it bind. */
export const RECORD_CACHE_MAX_BYTES = 32 * 1024 * 1024;

/**
 * Bounded by entries AND bytes, oldest out: a count alone let 10,000 cached Blobs or large
 * MultiLanguageProperties hold gigabytes. A record bigger than a sixteenth of the budget is not kept
 * at all (it would push out hundreds of hot values for one plan's sake; its next write reads it again).
 */
export function createRecordCache(maxEntries: number, maxBytes = RECORD_CACHE_MAX_BYTES): RecordCache {
  const records = new Map<string, StoredElement>();
  const sizes = new Map<string, number>();
  let bytes = 0;
  const drop = (k: string) => {
    bytes -= sizes.get(k) ?? 0;
    sizes.delete(k);
    records.delete(k);
  };
  const remember = (k: string, record: StoredElement) => {
    drop(k);
    const size = footprint(k, record);
    if (size > maxBytes / 16) return;
    records.set(k, record);
    sizes.set(k, size);
    bytes += size;
    while (records.size > maxEntries || bytes > maxBytes) drop(records.keys().next().value!);
  };
  return {
    view(repository) {
      const hits: string[] = [];
      const reads = new CachedReads(repository, records, hits, remember, drop);
      return {
        reads,
        usedCache: () => hits.length > 0,
        forget: () => {
          for (const k of hits) drop(k);
        },
      };
    },
    committed(commit, seq) {
      for (const op of commit.ops) {
        if (op.op === "put-element") {
          const k = key(op.submodelId, op.path);
          const known = records.get(k);
          if (known) remember(k, { ...known, json: op.json, revision: seq });
          // A new record's place (orderKey) is the store's to assign: read it when needed.
          else if (op.insert) drop(k);
        } else if (op.op === "touch-element") {
          const k = key(op.submodelId, op.path);
          const known = records.get(k);
          if (known) remember(k, { ...known, revision: seq });
        } else if (op.op === "delete-element") {
          drop(key(op.submodelId, op.path));
          // A list item gone shifts the items after it: what was cached under their indexes now
          // names other items (a commit would catch that by orderKey, but need not fail for it).
          const { parentPath, index } = splitParent(op.path);
          if (index !== undefined) {
            const below = key(op.submodelId, `${parentPath}[`);
            for (const k of records.keys()) if (k.startsWith(below)) drop(k);
          }
        } else if (op.op === "delete-identifiable" && op.kind === "submodel") {
          records.clear();
          sizes.clear();
          bytes = 0;
        }
      }
    },
    failed(commit) {
      for (const p of commit.preconditions) if (p.on === "element") drop(key(p.submodelId, p.path));
      for (const op of commit.ops) if ("path" in op && "submodelId" in op) drop(key(op.submodelId, op.path));
    },
    clear: () => {
      records.clear();
      sizes.clear();
      bytes = 0;
    },
    get size() {
      return records.size;
    },
    get bytes() {
      return bytes;
    },
  };
}
