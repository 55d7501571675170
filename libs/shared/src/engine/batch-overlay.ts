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

export function createBatchOverlay(): BatchOverlay {
  const records = new Map<string, OverlayRecord>();
  const overlaid = (submodelId: string, stored: StoredElement): StoredElement => {
    const over = records.get(key(submodelId, stored.path));
    return over ? { ...stored, json: over.json ?? stored.json, revision: over.revision } : stored;
  };
  const over = (repository: Repository): Repository => Object.create(repository, {
    getElements: {
      value: async (submodelId: string, paths: string[]) => (await repository.getElements(submodelId, paths)).map((r) => r && overlaid(submodelId, r)),
    },
    getSubtree: {
      value: async (submodelId: string, path: string, maxDepth?: number) => (await repository.getSubtree(submodelId, path, maxDepth)).map((r) => overlaid(submodelId, r)),
    },
    listChildren: {
      value: async (submodelId: string, parentPath: string, page: { cursor?: string; limit: number }) => {
        const result = await repository.listChildren(submodelId, parentPath, page);
        return { ...result, items: result.items.map((r) => overlaid(submodelId, r)) };
      },
    },
  }) as Repository;

  return {
    over,
    add(commit, index) {
      const revision = batchRevision(index);
      const changes: [string, OverlayRecord][] = [];
      for (const op of commit.ops) {
        if (op.op === "put-element" && !op.insert) changes.push([key(op.submodelId, op.path), { json: op.json, revision }]);
        else if (op.op === "touch-element") changes.push([key(op.submodelId, op.path), { json: records.get(key(op.submodelId, op.path))?.json, revision }]);
        else if (op.op !== "touch-identifiable") return false;
      }
      for (const [k, record] of changes) records.set(k, record);
      return true;
    },
  };
}
