import { CommandError } from "../../contracts/index.ts";
import type { EngineContext } from "../engine-context.ts";
import { uploadKeysIn } from "./upload-claims.ts";

/** How long a write naming an upload waits for a delete of it under way (upload-claims.ts deletesOf). */
export const DELETE_WAIT_BOUND_MS = 5000;

/**
 * Runs a write's commit holding a claim on the uploads its body names (upload-claims.ts), so a
 * release looking for Files that name them meanwhile keeps them, and looks again once the write
 * settled. A body that names none (a Property's value) commits as it is.
 */
export async function claimedCommit<T>(ctx: EngineContext, body: string, commit: () => Promise<T>): Promise<T> {
  const keys = uploadKeysIn(body);
  if (keys.length === 0) return await commit();
  const settled = ctx.uploadClaims.hold(keys);
  let committed = false;
  try {
    // Claimed first, then the deletes decided before the claim: one decided after it sees the claim.
    if (!(await ctx.uploadClaims.deletesOf(keys, DELETE_WAIT_BOUND_MS)))
      throw new CommandError(
        "unavailable",
        `An upload this write names is being deleted, and the file store has not finished within ${DELETE_WAIT_BOUND_MS / 1000} s; nothing was written, repeat it later`,
      );
    const result = await commit();
    committed = true;
    return result;
  } finally {
    // A release that kept an upload only for this claim looks again now (upload-claims.ts): the
    // write settled, so it either committed a File naming it or leaves it to go.
    const rechecks = settled(committed);
    for (const recheck of rechecks) await recheck().catch(() => undefined);
  }
}
