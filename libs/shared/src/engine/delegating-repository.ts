import type { Commit, IdentifiableKind, Repository } from "./ports/index.ts";

/**
 * A Repository that hands every call to `base`: the parent of read views that change only a few
 * reads (batch-overlay.ts, record-cache.ts). A class, so a view made per write costs one small
 * object, not a copy of the port's twenty methods.
 */
export class DelegatingRepository implements Repository {
  constructor(protected readonly base: Repository) {}
  getIdentifiable(kind: IdentifiableKind, id: string) {
    return this.base.getIdentifiable(kind, id);
  }
  kindOf(id: string) {
    return this.base.kindOf(id);
  }
  listIdentifiables(kind: IdentifiableKind, page: { cursor?: string; limit: number }) {
    return this.base.listIdentifiables(kind, page);
  }
  listIdentifiablesByTerms(kind: IdentifiableKind, terms: readonly string[], page: { cursor?: string; limit: number }) {
    return this.base.listIdentifiablesByTerms(kind, terms, page);
  }
  countIdentifiables(kind: IdentifiableKind) {
    return this.base.countIdentifiables(kind);
  }
  getElements(submodelId: string, paths: string[]) {
    return this.base.getElements(submodelId, paths);
  }
  listChildren(submodelId: string, parentPath: string, page: { cursor?: string; limit: number }) {
    return this.base.listChildren(submodelId, parentPath, page);
  }
  countChildren(submodelId: string, parentPath: string) {
    return this.base.countChildren(submodelId, parentPath);
  }
  getSubtree(submodelId: string, path: string, maxDepth?: number) {
    return this.base.getSubtree(submodelId, path, maxDepth);
  }
  commit(commit: Commit) {
    return this.base.commit(commit);
  }
  commitBatch(commits: Commit[]) {
    return this.base.commitBatch(commits);
  }
  currentSeq() {
    return this.base.currentSeq();
  }
  readEvents(after: number, limit: number) {
    return this.base.readEvents ? this.base.readEvents(after, limit) : Promise.resolve([]);
  }
  eventLogBounds() {
    return this.base.eventLogBounds
      ? this.base.eventLogBounds()
      : this.base.currentSeq().then((latest) => ({ latest }));
  }
  putOperationHandle(handleId: string, json: string, options: { ttlMs: number; expectedVersion: number | null }) {
    return this.base.putOperationHandle(handleId, json, options);
  }
  getOperationHandle(handleId: string) {
    return this.base.getOperationHandle(handleId);
  }
  deleteOperationHandles() {
    return this.base.deleteOperationHandles();
  }
  renewOperationRunner(runnerId: string, ttlMs: number) {
    return this.base.renewOperationRunner(runnerId, ttlMs);
  }
  isOperationRunnerAlive(runnerId: string) {
    return this.base.isOperationRunnerAlive(runnerId);
  }
  getIdempotencyRecord(key: string) {
    return this.base.getIdempotencyRecord(key);
  }
  putIdempotencyReply(key: string, fingerprint: string, reply: string, ttlMs: number) {
    return this.base.putIdempotencyReply(key, fingerprint, reply, ttlMs);
  }
  clear() {
    return this.base.clear();
  }
  close() {
    return this.base.close();
  }
}
