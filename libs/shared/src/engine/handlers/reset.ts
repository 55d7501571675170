import { type Command, CommandError } from "../../contracts/index.ts";
import type { EngineContext } from "../engine-context.ts";
import { markReset, packageWritesUnderWay, unmarkReset } from "../packages/reset-marker.ts";
import type { IdentifiableKind } from "../ports/index.ts";
import { removeIdentifiable } from "../remove-identifiable.ts";
import type { Handled } from "./handled.ts";

const KINDS: readonly IdentifiableKind[] = ["shell", "submodel", "concept-description"];
const BATCH = 500;

/**
 * GET/DELETE /reset (spec §4.2): everything goes. First the reset hooks (pending operations, and
 * the configured asset connections, which stop in every process before the hook returns, ADR 0053:
 * nothing keeps writing into what is being deleted or serves what is imported next), then
 * every identifiable, one commit and one `*.deleted` event each (the OPC UA mirror and every other
 * subscriber see each deletion), then every file (attachments, thumbnails, AASX packages).
 *
 * Always reads the first page again rather than paging on: anything created meanwhile is deleted
 * too, and the loop ends when the store is empty.
 */
export async function resetStore(ctx: EngineContext, cmd: Command<"ResetStore">): Promise<Handled<null>> {
  // No package write runs beside a reset (packages/reset-marker.ts): marked first, then looked for.
  await markReset(ctx.fileStore, Date.now());
  if ((await packageWritesUnderWay(ctx.fileStore)) > 0) {
    await ctx.packageIntents.sweep();
    const left = await packageWritesUnderWay(ctx.fileStore);
    if (left > 0) {
      await unmarkReset(ctx.fileStore);
      throw new CommandError(
        "conflict",
        `${left} AASX package write(s) are under way, or were interrupted and wait for their rollback (within ${Math.ceil(ctx.packageIntents.rollbackWithinMs / 60_000)} min): repeat the reset once they are over`,
      );
    }
  }
  for (const hook of ctx.resetHooks) await hook();
  for (const kind of KINDS) {
    for (;;) {
      const page = await ctx.repository.listIdentifiables(kind, { limit: BATCH });
      let removed = 0;
      for (const stored of page.items)
        if (await removeIdentifiable(ctx, kind, stored.id, cmd.origin, cmd.correlationId, true)) removed++;
      // A page of which nothing could be removed would come back forever.
      if (removed === 0) break;
    }
  }
  // The reset's mark goes with everything else.
  await ctx.fileStore.clear();
  return { value: null };
}
