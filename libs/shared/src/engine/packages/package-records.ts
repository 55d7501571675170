import { echoed } from "../../aas/index.ts";
import { CommandError } from "../../contracts/index.ts";
import { type FileStore, type IdentifiableKind, MAX_FILE_PATH_LENGTH } from "../ports/index.ts";

/**
 * AASX File Server packages live in the FileStore next to the model's files, under keys that can
 * never be package part names (those start with "/"):
 *
 *   package:<packageId>        the package as uploaded, byte for byte
 *   package-info:<packageId>   JSON: PackageRecord
 */
export interface PackageRecord {
  packageId: string;
  fileName: string;
  aasIds: string[];
  /** The identifiables this package brought into the model (deleting the package deletes them). */
  written: { kind: IdentifiableKind; id: string }[];
  /**
   * Set on records written since package claims exist (package-claims.ts): deleting the package
   * removes only the identifiables it still holds. Older records remove everything they list.
   */
  claims?: true;
  /** The FileStore keys of the files it brought. */
  fileKeys: string[];
  /**
   * The write (POST or PUT) that wrote this record, as its intent names it (package-intents.ts):
   * an intent left beside a record of its own write belongs to a write that completed.
   */
  writeId?: string;
}

export const PACKAGE_CONTENT_TYPE = "application/asset-administration-shell-package";
const INFO_PREFIX = "package-info:";

export function packageKey(packageId: string): string {
  return `package:${packageId}`;
}

function infoKey(packageId: string): string {
  return `${INFO_PREFIX}${packageId}`;
}

export async function readPackageRecord(files: FileStore, packageId: string): Promise<PackageRecord> {
  const record = await findPackageRecord(files, packageId);
  if (!record) throw new CommandError("not-found", `AASX package '${echoed(packageId)}' not found`);
  return record;
}

export async function writePackageRecord(files: FileStore, record: PackageRecord, bytes: Uint8Array): Promise<void> {
  await files.put(packageKey(record.packageId), { contentType: PACKAGE_CONTENT_TYPE, bytes });
  await files.put(infoKey(record.packageId), {
    contentType: "application/json",
    bytes: Buffer.from(JSON.stringify(record), "utf8"),
  });
}

export async function deletePackageRecord(files: FileStore, packageId: string): Promise<void> {
  await files.delete(infoKey(packageId));
  await files.delete(packageKey(packageId));
}

/** Every package record, ordered by packageId. */
export async function listPackageRecords(files: FileStore): Promise<PackageRecord[]> {
  const records: PackageRecord[] = [];
  for (const info of await files.list(INFO_PREFIX)) {
    const stored = await files.get(info.path);
    if (stored) records.push(JSON.parse(Buffer.from(stored.bytes).toString("utf8")) as PackageRecord);
  }
  return records;
}

/** The record, or undefined when the package has none (yet, or any more). */
export async function findPackageRecord(files: FileStore, packageId: string): Promise<PackageRecord | undefined> {
  // A package id too long to be a FileStore key names no package: the FileStore's refusal of the
  // key was a 500 (a client's 6,000-character id in GET or DELETE /packages/{id}).
  const known = typeof packageId === "string" && packageId !== "" && infoKey(packageId).length <= MAX_FILE_PATH_LENGTH;
  const stored = known ? await files.get(infoKey(packageId)) : undefined;
  return stored === undefined ? undefined : (JSON.parse(Buffer.from(stored.bytes).toString("utf8")) as PackageRecord);
}
