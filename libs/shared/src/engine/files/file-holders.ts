import { randomUUID } from "node:crypto";
import { listPackageRecords } from "../packages/package-records.ts";
import type { FileStore } from "../ports/index.ts";

/**
 * Who holds the files that came with models (docs/adr/0051). A file an AASX brought is shared by
 * every package or import whose identifiables name it, and deleted only when the last of them
 * goes. The holders are records beside the files, under keys that can never be part names:
 *
 *   package-info:<packageId>   a package (PackageRecord.fileKeys, packages/package-records.ts)
 *   import-files:<uuid>        JSON string[]: the files a start-up model or POST /import stored or
 *                              shares; never released (only /reset clears it, with everything)
 *
 * A file no record names (an upload, fileStorage.existingDataPath, a model loaded before these
 * records existed) is someone else's: an import neither shares it nor deletes it.
 *
 * The records say which files a package or import names; whether a file is still held is decided
 * by the FileStore itself (FileStore.hold and release, one atomic step each), under the holder ids
 * below. Deciding it from the records raced (ADR 0051, amendment "holders beside the bytes"): four
 * packages sharing a file, deleted at once, each saw the others' records still there and none
 * deleted it; a package posted beside another that had just stored the file found it named by no
 * record yet and moved its own copy aside. The records decide only for files stored before the
 * FileStore kept holders ("unheld").
 */
const IMPORT_PREFIX = "import-files:";

/** The holder id (FileStore.hold) of a package: one per packageId, over its PUTs. */
export function packageHolder(packageId: string): string {
  return `package-info:${packageId}`;
}

/** A new import's holder id: the key of the record holdForImport writes for it. */
export function newImportHolder(): string {
  return `${IMPORT_PREFIX}${randomUUID()}`;
}

/** Every key some package or import holds, but the package `exceptPackageId`. */
export async function heldKeys(files: FileStore, exceptPackageId?: string): Promise<Set<string>> {
  const held = new Set<string>();
  for (const record of await listPackageRecords(files))
    if (record.packageId !== exceptPackageId) for (const key of record.fileKeys) held.add(key);
  for (const info of await files.list(IMPORT_PREFIX)) {
    const stored = await files.get(info.path);
    if (stored) for (const key of JSON.parse(Buffer.from(stored.bytes).toString("utf8")) as string[]) held.add(key);
  }
  return held;
}

/** Records that a start-up model or POST /import (`holder`: newImportHolder) holds `keys` from now on. */
export async function holdForImport(files: FileStore, keys: readonly string[], holder: string): Promise<void> {
  if (keys.length === 0) return;
  await files.put(holder, {
    contentType: "application/json",
    bytes: Buffer.from(JSON.stringify(keys), "utf8"),
  });
}

/**
 * The files of a package that is deleted or replaced: each goes with its last holder (the
 * FileStore decides, atomically). A file stored before the FileStore kept holders ("unheld") is
 * deleted unless another package's or an import's record names it, or it is an upload (an owner:
 * never a package's, whatever its path), as before; that look and delete are two steps, racing as
 * before, but only for such files: a hold never adopts a file stored without holders, and a path
 * already released ("absent", a rollback releasing a PUT's old files again) is left alone, so a
 * file another package stores there meanwhile is never taken for an old one.
 */
export async function releasePackageFiles(files: FileStore, packageId: string, keys: readonly string[]): Promise<void> {
  let held: Set<string> | undefined;
  for (const key of new Set(keys)) {
    if ((await files.release(key, packageHolder(packageId))) !== "unheld") continue;
    held ??= await heldKeys(files, packageId);
    if (held.has(key)) continue;
    const stored = await files.get(key);
    if (stored !== undefined && stored.owner === undefined) await files.delete(key);
  }
}
