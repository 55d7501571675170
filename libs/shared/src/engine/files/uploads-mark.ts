import type { FileStore } from "../ports/index.ts";

/**
 * Whether any upload may be stored, answered from one mark instead of a listing. Deleting a
 * submodel looks for uploads its File elements hold only when some may exist (a submodel of a
 * million elements is not read through for nothing); that question listed every stored file under
 * `/aasx/files/` once per deleted submodel, which on the filesystem store opens every file: deleting
 * a package of 300 submodels took 7–44 s there, 86 s with two replicas (a black-box finding).
 *
 * storeUpload writes the mark before an upload's bytes, so a File can only name an upload once the
 * mark exists. `/reset` clears it with the files. Uploads stored before the mark existed are found
 * by one listing per process and FileStore, which then writes it.
 */
const MARK = "uploads-stored";
// Uploads live in folders of 16 hex digits (file-paths.ts uploadPath).
const UPLOAD = /^\/aasx\/files\/[0-9a-f]{16}\//;
const looked = new WeakSet<FileStore>();

export async function markUploadsStored(files: FileStore): Promise<void> {
  await files.create(MARK, { contentType: "text/plain", bytes: Buffer.from("1", "utf8") });
}

export async function uploadsMayBeStored(files: FileStore): Promise<boolean> {
  if ((await files.get(MARK)) !== undefined) return true;
  if (looked.has(files)) return false;
  looked.add(files);
  const found = (await files.list("/aasx/files/")).some((file) => UPLOAD.test(file.path));
  if (found) await markUploadsStored(files);
  return found;
}
