import type { FileStore, IdentifiableKind } from "../ports/index.ts";
import type { PackageRecord } from "./package-records.ts";

/**
 * Which package brought an identifiable, for as long as it is that identifiable: a FileStore entry
 * `package-claim:<kind>:<id>` holding the packageId, written when the package writes it and
 * removed whenever the identifiable is deleted, by anyone. Deleting or replacing a package removes
 * only what it still holds: a submodel it brought, deleted and then created again by an operator
 * under the same id, is the operator's (it was deleted with the package before).
 *
 * Not in the commit's atomic step (the FileStore is not the model store): a process that dies
 * between deleting an identifiable and dropping its claim leaves a claim the package would act on.
 * Package records written before claims existed carry no `claims` flag and keep the old rule
 * (everything they list).
 */
const CLAIM_PREFIX = "package-claim:";

function claimKey(kind: IdentifiableKind, id: string): string {
  return `${CLAIM_PREFIX}${kind}:${id}`;
}

export async function claimForPackage(
  files: FileStore,
  packageId: string,
  written: readonly { kind: IdentifiableKind; id: string }[],
): Promise<void> {
  // All at once (Redis pipelines them): a package claims each batch right after its commit, and a
  // crash in between leaves that batch unclaimed, so the window is kept short.
  await Promise.all(
    written.map(({ kind, id }) =>
      files.put(claimKey(kind, id), { contentType: "text/plain", bytes: Buffer.from(packageId, "utf8") }),
    ),
  );
}

/** The identifiable was deleted: no package holds it any more. */
export async function dropPackageClaim(files: FileStore, kind: IdentifiableKind, id: string): Promise<void> {
  await files.delete(claimKey(kind, id));
}

/** Whether the package still holds the identifiable it brought. */
export async function heldByPackage(
  files: FileStore,
  packageId: string,
  kind: IdentifiableKind,
  id: string,
): Promise<boolean> {
  const claim = await files.get(claimKey(kind, id));
  return claim !== undefined && Buffer.from(claim.bytes).toString("utf8") === packageId;
}

/**
 * The claim goes if it still names the package: an identifiable a rolled-back write claimed but
 * never committed, or one a racing writer created first (package-rollback.ts).
 */
export async function dropClaimOfPackage(
  files: FileStore,
  packageId: string,
  kind: IdentifiableKind,
  id: string,
): Promise<void> {
  if (await heldByPackage(files, packageId, kind, id)) await dropPackageClaim(files, kind, id);
}

/** The identifiables of `record.written` the package still holds (all of them for records older than claims). */
export async function heldContent(files: FileStore, record: PackageRecord): Promise<PackageRecord["written"]> {
  if (record.claims !== true) return record.written;
  const held: PackageRecord["written"] = [];
  for (const item of record.written)
    if (await heldByPackage(files, record.packageId, item.kind, item.id)) held.push(item);
  return held;
}
