import type { HeldUpload } from "./released-uploads.ts";

/**
 * A submodel's delete reads the uploads its Files hold before its commit (remove-identifiable.ts):
 * read in the commit's plan, a large submodel's delete starved, since the plan reads every element
 * and runs again after each write to the submodel. So an attachment committed between that read
 * and the delete's commit was not among them, and its bytes stayed until /reset. Here a delete
 * watches its submodel from before its read until it committed, and every attachment committed
 * meanwhile is recorded for it to release as well. Nothing waits.
 * In the process: commands of one submodel go to one model-store replica (ADR 0027), as with the
 * upload claims.
 */
export class UploadsDuringDeletes {
  private readonly watched = new Map<string, { deletes: number; uploads: HeldUpload[] }>();

  /**
   * A delete of `submodelId` starts: call the result once it committed (or failed) for what was
   * recorded. The watch ends at the first call; a later one answers the same.
   */
  watch(submodelId: string): () => HeldUpload[] {
    let entry = this.watched.get(submodelId);
    if (entry === undefined) {
      entry = { deletes: 0, uploads: [] };
      this.watched.set(submodelId, entry);
    }
    entry.deletes++;
    const watching = entry;
    let ended = false;
    return () => {
      if (!ended) {
        ended = true;
        if (--watching.deletes === 0 && this.watched.get(submodelId) === watching) this.watched.delete(submodelId);
      }
      return [...watching.uploads];
    };
  }

  /** An attachment committed: recorded only while a delete of its submodel watches. */
  committed(submodelId: string, upload: HeldUpload): void {
    this.watched.get(submodelId)?.uploads.push(upload);
  }
}
