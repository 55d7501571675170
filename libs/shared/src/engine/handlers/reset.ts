import type { Command } from "../../contracts/index.ts";
import type { EngineContext } from "../engine-context.ts";
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
  await ctx.fileStore.clear();
  return { value: null };
}
