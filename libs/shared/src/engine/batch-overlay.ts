import { DelegatingRepository } from "./delegating-repository.ts";
import { batchRevision, type Commit, type Repository, type StoredElement } from "./ports/index.ts";

/**
 * What a group commit's later writes read: the repository as it will be once the earlier commits of
 * the batch are applied. Only value rewrites are supported (put-element of an existing record,
 * touches): the kinds of commit a PATCH makes, which never add, remove or move records. Records the
 * batch rewrote carry the placeholder revision of their commit (`batchRevision`), so a plan's
 * compare-and-set names "the state after commit j" and the store checks exactly that.
 */
export interface BatchOverlay {
  /** Reads for the next plan of the batch: `base` (the repository, or a cached view of it) plus the batch so far. */
  over(base: Repository): Repository;
  /**
   * Take commit `index` of the batch into account. False when it changes structure (inserts,
   * deletes, identifiables): the batch must end before it, since later plans could not see it.
   */
  add(commit: Commit, index: number): boolean;
}

interface OverlayRecord {
  json?: string;
  revision: number;
}

const key = (submodelId: string, path: string) => `${submodelId}\u0000${path}`;

/** The base's reads with the batch's records laid over them. */
class OverlayReads extends DelegatingRepository {
  constructor(
    base: Repository,
    private readonly records: Map<string, OverlayRecord>,
  ) {
    super(base);
  }
  private overlaid(submodelId: string, stored: StoredElement): StoredElement {
    const over = this.records.get(key(submodelId, stored.path));
    return over ? { ...stored, json: over.json ?? stored.json, revision: over.revision } : stored;
  }
  override async getElements(submodelId: string, paths: string[]) {
    return (await this.base.getElements(submodelId, paths)).map((r) => r && this.overlaid(submodelId, r));
  }
  override async getSubtree(submodelId: string, path: string, maxDepth?: number) {
    return (await this.base.getSubtree(submodelId, path, maxDepth)).map((r) => this.overlaid(submodelId, r));
  }
  override async listChildren(submodelId: string, parentPath: string, page: { cursor?: string; limit: number }) {
    const result = await this.base.listChildren(submodelId, parentPath, page);
    return { ...result, items: result.items.map((r) => this.overlaid(submodelId, r)) };
  }
}

export function createBatchOverlay(): BatchOverlay {
  const records = new Map<string, OverlayRecord>();
  const over = (repository: Repository): Repository => new OverlayReads(repository, records);

  return {
    over,
    add(commit, index) {
      const revision = batchRevision(index);
      const changes: [string, OverlayRecord][] = [];
      for (const op of commit.ops) {
        if (op.op === "put-element" && !op.insert)
          changes.push([key(op.submodelId, op.path), { json: op.json, revision }]);
        else if (op.op === "touch-element")
          changes.push([
            key(op.submodelId, op.path),
            { json: records.get(key(op.submodelId, op.path))?.json, revision },
          ]);
        else if (op.op !== "touch-identifiable") return false;
      }
      for (const [k, record] of changes) records.set(k, record);
      return true;
    },
  };
}
