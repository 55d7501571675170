import type { EngineContext } from "../engine-context.ts";
import { fileKeyOf, isOwnUpload } from "./file-paths.ts";
import { deleteUpload } from "./upload-store.ts";

/**
 * A thumbnail a client uploaded (PUT …/asset-information/thumbnail) belongs to its shell: once the
 * shell no longer names it (a PUT of the shell or of its asset information that names another
 * thumbnail or none, a new upload, DELETE of the thumbnail, the shell deleted), its bytes are
 * deleted after the write committed. A PUT of the asset information used to leave them, out of
 * reach of every call but /reset. Only the shell's own upload folder counts: another shell naming
 * it is not looked for, as Files of other submodels are not for an attachment (docs/adr/0051).
 */
export async function releaseThumbnail(
  ctx: EngineContext,
  aasId: string,
  before: string | undefined,
  after: string | undefined,
): Promise<void> {
  if (before === undefined || !isOwnUpload("thumbnails", aasId, before)) return;
  if (after !== undefined && fileKeyOf(after) === fileKeyOf(before)) return;
  // The write is committed: a store that cannot delete now leaves the bytes, until /reset.
  await deleteUpload(ctx, before, { shellId: aasId }).catch(() => undefined);
}

/** The defaultThumbnail path of a shell (as JSON text or parsed). */
export function thumbnailPathOf(shell: string | Record<string, unknown>): string | undefined {
  // Most shells have none: their text is not parsed for nothing.
  if (typeof shell === "string" && !shell.includes('"defaultThumbnail"')) return undefined;
  const parsed = (typeof shell === "string" ? JSON.parse(shell) : shell) as {
    assetInformation?: { defaultThumbnail?: { path?: unknown } };
  };
  const path = parsed.assetInformation?.defaultThumbnail?.path;
  return typeof path === "string" ? path : undefined;
}
