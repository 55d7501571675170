import type { EngineContext } from "../engine-context.ts";
import { uploadKeysIn } from "./upload-claims.ts";

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
    await ctx.uploadClaims.deletesOf(keys);
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
