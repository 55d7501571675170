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
 */
const IMPORT_PREFIX = "import-files:";

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

/** Records that a start-up model or POST /import holds `keys` from now on. */
export async function holdForImport(files: FileStore, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await files.put(`${IMPORT_PREFIX}${randomUUID()}`, {
    contentType: "application/json",
    bytes: Buffer.from(JSON.stringify(keys), "utf8"),
  });
}

/**
 * The files of a package that is deleted or replaced: each is deleted unless another package or
 * an import holds it too, or it is an upload (an owner: never a package's, whatever its path).
 */
export async function releasePackageFiles(files: FileStore, packageId: string, keys: readonly string[]): Promise<void> {
  const held = await heldKeys(files, packageId);
  for (const key of keys) {
    if (held.has(key)) continue;
    const stored = await files.get(key);
    if (stored !== undefined && stored.owner === undefined) await files.delete(key);
  }
}
