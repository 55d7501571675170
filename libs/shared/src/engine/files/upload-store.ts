import { randomBytes } from "node:crypto";
import type { EngineContext } from "../engine-context.ts";
import type { FileOwner, StoredFile } from "../ports/index.ts";
import { heldKeys } from "./file-holders.ts";
import { fileKeyOf, uploadPath } from "./file-paths.ts";
import { sameOwner } from "./upload-access.ts";

/**
 * Stores an upload (PUT …/attachment, …/thumbnail) in its owner's folder and answers its model
 * path (`replaced`: it replaced an earlier upload there). It replaces only an earlier upload of the
 * same owner under the same name: a file of anyone else at that path (a package may carry a part
 * there: upload folders are hashes that can be computed) is kept, and the upload goes to a
 * sub-folder of its own instead (docs/adr/0051).
 */
export async function storeUpload(
  ctx: EngineContext,
  kind: "files" | "thumbnails",
  ownerName: string,
  owner: FileOwner,
  fileName: string,
  file: Omit<StoredFile, "owner">,
): Promise<{ modelPath: string; replaced: boolean }> {
  const stored: StoredFile = { ...file, owner };
  let modelPath = uploadPath(kind, ownerName, fileName);
  for (;;) {
    const key = fileKeyOf(modelPath)!;
    if (await ctx.fileStore.create(key, stored)) return { modelPath, replaced: false };
    const existing = await ctx.fileStore.get(key);
    if (existing === undefined) continue;
    if (await isUploadOf(ctx, key, existing, owner)) {
      await ctx.fileStore.put(key, stored);
      return { modelPath, replaced: true };
    }
    modelPath = uploadPath(kind, ownerName, fileName, randomBytes(4).toString("hex"));
  }
}

/** Deletes an earlier upload of `owner` at `modelPath`; a file of anyone else there stays. */
export async function deleteUpload(ctx: EngineContext, modelPath: string, owner: FileOwner): Promise<void> {
  const key = fileKeyOf(modelPath);
  if (key === undefined) return;
  const existing = await ctx.fileStore.get(key);
  if (existing !== undefined && (await isUploadOf(ctx, key, existing, owner))) await ctx.fileStore.delete(key);
}

/**
 * Whether the file at `key` (in `owner`'s upload folder) is its upload: it names that owner, or,
 * stored before uploads had owners, it has none and no package or import holds it.
 */
async function isUploadOf(ctx: EngineContext, key: string, file: StoredFile, owner: FileOwner): Promise<boolean> {
  if (file.owner !== undefined) return sameOwner(file.owner, owner);
  return !(await heldKeys(ctx.fileStore)).has(key);
}
