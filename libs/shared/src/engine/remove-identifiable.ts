import { CommandError } from "../contracts/index.ts";
import { eventDraft } from "./commit-runner.ts";
import type { EngineContext } from "./engine-context.ts";
import { releaseThumbnail, thumbnailPathOf } from "./files/released-thumbnails.ts";
import { commitSubmodelDelete } from "./files/submodel-delete.ts";
import { dropPackageClaim } from "./packages/package-claims.ts";
import type { IdentifiableKind } from "./ports/index.ts";
import { submodelSemanticIdOf } from "./submodel-semantic-id.ts";
import { identifiableTarget } from "./write-targets.ts";

/**
 * Delete one identifiable (a submodel with all its elements) in its own commit, with its
 * `<kind>.deleted` event, so every endpoint sees it go. False when it was already gone: bulk
 * deletions (reset, deleting a package) race with other writers and take what they find. What
 * clients uploaded into it (a File's attachment, a shell's thumbnail) goes with it, as with
 * DELETE of the submodel or shell (docs/adr/0051); a package's delete left them until /reset.
 */
export async function removeIdentifiable(
  ctx: EngineContext,
  kind: IdentifiableKind,
  id: string,
  origin?: string,
  correlationId?: string,
  /** /reset clears every file afterwards: the uploads are not looked for one identifiable at a time. */
  filesCleared = false,
): Promise<boolean> {
  let thumbnail: string | undefined;
  const commit = () =>
    ctx.commit(identifiableTarget(kind, id), async () => {
      const stored = await ctx.repository.getIdentifiable(kind, id);
      if (!stored) throw new CommandError("not-found", `${id} is gone`);
      if (kind === "shell" && !filesCleared) thumbnail = thumbnailPathOf(stored.json);
      return {
        commit: {
          preconditions: [{ on: "identifiable", kind, id, revision: stored.revision }],
          ops: [{ op: "delete-identifiable", kind, id }],
          event: {
            ...eventDraft({ kind: `${kind}.deleted`, id, origin, correlationId }, undefined, ctx.clock.now()),
            ...(kind === "submodel" ? { submodelSemanticId: submodelSemanticIdOf(stored.json) } : {}),
          },
        },
      };
    });
  try {
    if (kind === "submodel" && !filesCleared) await commitSubmodelDelete(ctx, id, commit);
    else {
      await commit();
      await dropPackageClaim(ctx.fileStore, kind, id);
    }
    if (thumbnail !== undefined) await releaseThumbnail(ctx, id, thumbnail, undefined);
    return true;
  } catch (error) {
    if (error instanceof CommandError && error.code === "not-found") return false;
    throw error;
  }
}
