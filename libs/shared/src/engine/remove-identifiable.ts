import { CommandError } from "../contracts/index.ts";
import { eventDraft } from "./commit-runner.ts";
import type { EngineContext } from "./engine-context.ts";
import { dropPackageClaim } from "./packages/package-claims.ts";
import type { IdentifiableKind } from "./ports/index.ts";
import { identifiableTarget } from "./write-targets.ts";

/**
 * Delete one identifiable (a submodel with all its elements) in its own commit, with its
 * `<kind>.deleted` event, so every endpoint sees it go. False when it was already gone: bulk
 * deletions (reset, deleting a package) race with other writers and take what they find.
 */
export async function removeIdentifiable(
  ctx: EngineContext,
  kind: IdentifiableKind,
  id: string,
  origin?: string,
  correlationId?: string,
): Promise<boolean> {
  try {
    await ctx.commit(identifiableTarget(kind, id), async () => {
      const stored = await ctx.repository.getIdentifiable(kind, id);
      if (!stored) throw new CommandError("not-found", `${id} is gone`);
      return {
        commit: {
          preconditions: [{ on: "identifiable", kind, id, revision: stored.revision }],
          ops: [{ op: "delete-identifiable", kind, id }],
          event: eventDraft({ kind: `${kind}.deleted`, id, origin, correlationId }, undefined, ctx.clock.now()),
        },
      };
    });
    await dropPackageClaim(ctx.fileStore, kind, id);
    return true;
  } catch (error) {
    if (error instanceof CommandError && error.code === "not-found") return false;
    throw error;
  }
}
