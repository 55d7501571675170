import type { EngineContext } from "../engine-context.ts";
import { dropPackageClaim } from "../packages/package-claims.ts";
import { releaseUploads, uploadsHeldInSubmodel } from "./released-uploads.ts";

/**
 * Commits the delete of a submodel (`commit`), then lets go of what it held: the package's claim
 * on it and the uploads of its File elements (released-uploads.ts), wherever the delete comes from
 * (DELETE /submodels/{id}, a package's DELETE or PUT).
 * The uploads are read before the commit, not in its plan: the plan runs again after every write
 * to the submodel, and reading a large one takes seconds, so a Property written once a second
 * starved the delete (504). An attachment committed between that read and the commit is recorded
 * by a watch that starts before the read (uploads-during-deletes.ts), so its bytes go too.
 */
export async function commitSubmodelDelete<T>(
  ctx: EngineContext,
  submodelId: string,
  commit: () => Promise<T>,
): Promise<T> {
  const recorded = ctx.uploadsDuringDeletes.watch(submodelId);
  try {
    const held = await uploadsHeldInSubmodel(ctx, submodelId);
    const result = await commit();
    // One turn for the attachments that committed before this delete to record their uploads: a
    // group commit may settle them in the same turn as the delete, and their continuations may
    // then run after this one's.
    await new Promise((resolve) => setImmediate(resolve));
    held.push(...recorded());
    await dropPackageClaim(ctx.fileStore, "submodel", submodelId);
    if (held.length > 0) await releaseUploads(ctx, submodelId, held);
    return result;
  } finally {
    recorded();
  }
}
