import { randomBytes } from "node:crypto";
import type { EngineContext } from "../engine-context.ts";
import type { FileOwner, StoredFile } from "../ports/index.ts";
import { heldKeys } from "./file-holders.ts";
import { elementOwner, fileKeyOf, isOwnUpload, uploadPath } from "./file-paths.ts";
import { markUploadsStored } from "./uploads-mark.ts";

/**
 * Stores an upload (PUT …/attachment, …/thumbnail) in a sub-folder of its owner's folder that no
 * stored file has (`…/<owner>/<8 hex>/<name>`), and answers that model path. An upload never
 * replaces bytes in place, and no path is used twice: another File may name them (a client pointed
 * it there, a list item moved up an index names what was uploaded for its old index, a File of
 * another submodel), and such a File must keep serving what it named, under the ETag it was served
 * with, or nothing once the bytes went; never other bytes. What the File named before is released
 * after the commit, once no File names it (released-uploads.ts, docs/adr/0051).
 */
export async function storeUpload(
  ctx: EngineContext,
  kind: "files" | "thumbnails",
  ownerName: string,
  owner: FileOwner,
  fileName: string,
  file: Omit<StoredFile, "owner">,
): Promise<string> {
  const stored: StoredFile = { ...file, owner };
  // Before the bytes: a File can name the upload only once deletions know uploads may exist.
  await markUploadsStored(ctx.fileStore);
  for (;;) {
    const modelPath = uploadPath(kind, ownerName, fileName, randomBytes(4).toString("hex"));
    if (await ctx.fileStore.create(fileKeyOf(modelPath)!, stored)) return modelPath;
  }
}

/**
 * The upload a write stored at a path of its own (storeUpload: created, never replaced) and then
 * failed to commit: nothing can name it yet, so it goes without deleteUpload's owner check. That
 * check reads the file, and a file `/reset` cut in half while it was stored cannot be read: its
 * index entry stayed until the next `/reset`. When the commit's outcome is unknown (sent, no answer:
 * `RepositoryOutcomeUnknownError`), the File may name it now: the bytes stay, erring on the side of
 * keeping them (before, they went, and a File that had committed named deleted bytes).
 */
export async function discardUncommittedUpload(ctx: EngineContext, modelPath: string, error: unknown): Promise<void> {
  if (error instanceof Error && error.name === "RepositoryOutcomeUnknownError") return;
  const key = fileKeyOf(modelPath);
  if (key !== undefined) await ctx.fileStore.delete(key).catch(() => undefined);
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
  if (existing !== undefined && (await isUploadOf(ctx, modelPath, key, existing, owner)))
    await ctx.fileStore.delete(key);
}

/**
 * Whether the file at `key` (of `modelPath`) is an upload `owner` may delete: one of its submodel's
 * elements (or its shell) stored it, or, stored before uploads had owners, it has none, lies in
 * `owner`'s own upload folder and no package or import holds it.
 */
async function isUploadOf(
  ctx: EngineContext,
  modelPath: string,
  key: string,
  file: StoredFile,
  owner: FileOwner,
): Promise<boolean> {
  if (file.owner !== undefined) return sameSubmodelOrShell(file.owner, owner);
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
