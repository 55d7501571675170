import type { ChangeEvent, Preconditions } from "../contracts/index.ts";
import { readJsonable } from "./aas-input.ts";
import { eventDraft } from "./commit-runner.ts";
import type { EngineContext } from "./engine-context.ts";
import { releaseThumbnail, thumbnailPathOf } from "./files/released-thumbnails.ts";
import { readForWrite, unchanged } from "./identifiables.ts";
import { checkPreconditions } from "./preconditions.ts";
import { readBringingNoViolation } from "./violations-brought.ts";
import { identifiableTarget } from "./write-targets.ts";

export interface ShellRewrite {
  aasId: string;
  preconditions?: Preconditions;
  origin?: string;
  correlationId?: string;
  /** The new shell JSON from the current one; may throw a CommandError (e.g. 409). Runs again on a retry. */
  change: (shell: Record<string, unknown>) => Record<string, unknown>;
  /**
   * Throws the 404 of a part the write addresses that the shell does not have (a submodel
   * reference, a thumbnail): checked before the preconditions, as a missing target answers 404
   * whatever they say (RFC 9110 §13.2.1).
   */
  requirePart?: (shell: Record<string, unknown>) => void;
  /**
   * Which metamodel constraints the result must meet when the engine verifies updates (onUpdate):
   * "all" (default); "brought": only those the stored shell met (a write of one part, such as a
   * submodel reference, is not refused for a violation elsewhere it did not make:
   * violations-brought.ts); "none": deleting all asset links leaves a shell without asset ids on
   * purpose (ADR 0007).
   */
  verify?: "all" | "brought" | "none";
}

/**
 * The writes that change a part of a shell (asset information, submodel references, asset links):
 * read the shell, apply the change, read the result back as an AssetAdministrationShell (unknown
 * properties and types checked, canonical JSON), commit compare-and-set against the revision read.
 * One shell record, one event (`shell.updated`), whatever part was addressed. An uploaded
 * thumbnail the result no longer names is released after the commit (released-thumbnails.ts).
 */
export async function rewriteShell(
  ctx: EngineContext,
  rewrite: ShellRewrite,
): Promise<{ shell: Record<string, unknown>; event: ChangeEvent }> {
  const { aasId } = rewrite;
  let shell: Record<string, unknown> = {};
  let thumbnail: string | undefined;
  const event = await ctx.commit(identifiableTarget("shell", aasId), async () => {
    const stored = await readForWrite(ctx, "shell", aasId, rewrite.requirePart ? undefined : rewrite.preconditions);
    const current = JSON.parse(stored.json) as Record<string, unknown>;
    if (rewrite.requirePart) {
      rewrite.requirePart(current);
      checkPreconditions(rewrite.preconditions, stored.revision);
    }
    thumbnail = thumbnailPathOf(current);
    const verify = ctx.validation.onUpdate ? (rewrite.verify ?? "all") : "none";
    const next = rewrite.change(current);
    shell =
      verify === "brought"
        ? readBringingNoViolation(current, next, "AssetAdministrationShell")
        : readJsonable(next, "AssetAdministrationShell", verify === "all");
    return {
      commit: {
        preconditions: [unchanged(stored)],
        ops: [{ op: "put-identifiable", kind: "shell", id: aasId, json: JSON.stringify(shell) }],
        event: eventDraft(
          { kind: "shell.updated", id: aasId, origin: rewrite.origin, correlationId: rewrite.correlationId },
          shell,
          ctx.clock.now(),
        ),
      },
    };
  });
  // Committed: an uploaded thumbnail the shell no longer names goes (whichever part was written).
  await releaseThumbnail(ctx, aasId, thumbnail, thumbnailPathOf(shell));
  return { shell, event };
}
