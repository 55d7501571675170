import type { EngineContext } from "../engine-context.ts";
import { releasePackageFiles } from "../files/file-holders.ts";
import { removeIdentifiable } from "../remove-identifiable.ts";
import { createdByWrite } from "./created-by-write.ts";
import { dropClaimOfPackage, heldByPackage, heldContent } from "./package-claims.ts";
import { deletePackageIntent, type PackageIntent } from "./package-intents.ts";
import { deletePackageRecord, findPackageRecord } from "./package-records.ts";

/** How a rollback ended: its write had in fact completed, or what it left was taken back. */
export type RollbackOutcome = "completed" | "rolled-back";

/**
 * Takes back what an interrupted package write (package-intents.ts) may have left, whether the
 * write failed in this process or died with another one. Every step may be repeated: two replicas
 * sweeping one intent, or a sweep after a rollback that itself failed halfway, do no harm.
 *
 * - The identifiables it meant to write that the package holds (package-claims.ts: claimed after
 *   each committed batch, so only what it wrote) are removed, each with its `deleted` event. One
 *   deleted since and created again by someone else is left, as a package delete leaves it; so is
 *   one another write created under an id this one planned.
 * - A PUT had removed the old content before it wrote the new (or was removing it): the old content
 *   is not restored (its text is gone), so the rest of it goes too, and with it the package record.
 *   An interrupted PUT leaves no package, rather than a package that names content it lost.
 * - Its files, and an old record's files, are released as a package delete releases them: a file
 *   another package or an import holds, or an upload, stays.
 * - The intent goes last: a rollback that fails (the store still away) leaves it for the next sweep.
 *
 * `taken`: identifiables (`kind:id`) a racing writer created before this write could: never its own.
 */
export async function rollBackPackageWrite(
  ctx: EngineContext,
  intent: PackageIntent,
  taken: ReadonlySet<string> = new Set(),
  /**
   * What the write itself knows it committed (its commits' answers): taken back even without a
   * claim, which follows each batch and may not have (a failing file store). A sweep after a crash
   * knows only the claims.
   */
  written: readonly { kind: PackageIntent["identifiables"][number]["kind"]; id: string }[] = [],
): Promise<RollbackOutcome> {
  const files = ctx.fileStore;
  const { packageId } = intent;
  const record = await findPackageRecord(files, packageId);
  if (record !== undefined && record.writeId === intent.writeId) {
    // The write completed and died (or failed) just before it dropped its intent.
    await deletePackageIntent(files, packageId);
    return "completed";
  }
  const old = intent.replaces ? record : undefined;
  const items = new Map<string, { kind: PackageIntent["identifiables"][number]["kind"]; id: string }>();
  for (const item of [...intent.identifiables, ...(old ? await heldContent(files, old) : [])])
    items.set(`${item.kind}:${item.id}`, item);
  // A sweep after a crash (written unknown): the event log says what the write created.
  const known = written.length > 0 ? written : await createdByWrite(ctx.repository, intent);
  const committed = new Set(known.map(({ kind, id }) => `${kind}:${id}`));
  for (const [key, { kind, id }] of items) {
    if (taken.has(key) || (!committed.has(key) && !(await heldByPackage(files, packageId, kind, id)))) {
      await dropClaimOfPackage(files, packageId, kind, id);
      continue;
    }
    // False when it is not there: never committed (a later batch), or deleted since.
    if (!(await removeIdentifiable(ctx, kind, id, intent.origin, intent.correlationId)))
      await dropClaimOfPackage(files, packageId, kind, id);
  }
  // Files before the record: the record names the old files, and a rollback that stops here
  // finds them again on its next try.
  await releasePackageFiles(files, packageId, [...intent.fileKeys, ...(old?.fileKeys ?? [])]);
  // A POST's record does not exist, or only its bytes (the write died between them); a PUT's is the old one's.
  await deletePackageRecord(files, packageId);
  await deletePackageIntent(files, packageId);
  return "rolled-back";
}
