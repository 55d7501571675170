import { randomBytes } from "node:crypto";
import type { EngineContext } from "../engine-context.ts";
import type { FileOwner, StoredFile } from "../ports/index.ts";
import { heldKeys } from "./file-holders.ts";
import { elementOwner, fileKeyOf, isOwnUpload, uploadPath } from "./file-paths.ts";
import { sameOwner } from "./upload-access.ts";

/**
 * Stores an upload (PUT …/attachment, …/thumbnail) in its owner's folder and answers its model
 * path (`replaced`: it replaced an earlier upload there). It replaces only an earlier upload of the
 * same owner under the same name that the File or shell names now (`current`): a file of anyone
 * else at that path (a package may carry a part there: upload folders are hashes that can be
 * computed) is kept, and so is an upload another File names (after a list item went, the item now
 * at `L[0]` names what was uploaded for `L[1]`, in `L[1]`'s folder); the upload goes to a
 * sub-folder of its own instead (docs/adr/0051).
 */
export async function storeUpload(
  ctx: EngineContext,
  kind: "files" | "thumbnails",
  ownerName: string,
  owner: FileOwner,
  fileName: string,
  file: Omit<StoredFile, "owner">,
  current: string | undefined,
): Promise<{ modelPath: string; replaced: boolean }> {
  const stored: StoredFile = { ...file, owner };
  const currentKey = current === undefined ? undefined : fileKeyOf(current);
  let modelPath = uploadPath(kind, ownerName, fileName);
  for (;;) {
    const key = fileKeyOf(modelPath)!;
    if (await ctx.fileStore.create(key, stored)) return { modelPath, replaced: false };
    const existing = await ctx.fileStore.get(key);
    if (existing === undefined) continue;
    if (key === currentKey && (await isUploadOf(ctx, modelPath, key, existing, owner, sameOwner))) {
      await ctx.fileStore.put(key, stored);
      return { modelPath, replaced: true };
    }
    modelPath = uploadPath(kind, ownerName, fileName, randomBytes(4).toString("hex"));
  }
}

/**
 * Deletes the upload at `modelPath` that `owner` (the File element or shell) named; a file of
 * anyone else there stays. For a File, an upload made for any element of its submodel counts: when
 * a list item goes, the items behind it move up an index, and the File at `L[0]` names what was
 * uploaded for `L[1]`. The caller knows no File of the submodel names it any more
 * (released-uploads.ts), or has just stored it itself.
 */
export async function deleteUpload(ctx: EngineContext, modelPath: string, owner: FileOwner): Promise<void> {
  const key = fileKeyOf(modelPath);
  if (key === undefined) return;
  const existing = await ctx.fileStore.get(key);
  if (existing !== undefined && (await isUploadOf(ctx, modelPath, key, existing, owner, sameSubmodelOrShell)))
    await ctx.fileStore.delete(key);
}

/**
 * Whether the file at `key` (of `modelPath`) is an upload `owner` may replace or delete: its owner is the same
 * (`same`), or, stored before uploads had owners, it has none, lies in `owner`'s own upload folder
 * and no package or import holds it.
 */
async function isUploadOf(
  ctx: EngineContext,
  modelPath: string,
  key: string,
  file: StoredFile,
  owner: FileOwner,
  same: (a: FileOwner, b: FileOwner) => boolean,
): Promise<boolean> {
  if (file.owner !== undefined) return same(file.owner, owner);
  const inOwnFolder =
    "shellId" in owner
      ? isOwnUpload("thumbnails", owner.shellId, modelPath)
      : isOwnUpload("files", elementOwner(owner.submodelId, owner.idShortPath), modelPath);
  return inOwnFolder && !(await heldKeys(ctx.fileStore)).has(key);
}

function sameSubmodelOrShell(a: FileOwner, b: FileOwner): boolean {
  if ("shellId" in a) return "shellId" in b && a.shellId === b.shellId;
  return "submodelId" in b && a.submodelId === b.submodelId;
}
