import { randomUUID } from "node:crypto";
import { decodeBase64Url, echoed, encodeBase64Url } from "../../aas/index.ts";
import {
  type Command,
  CommandError,
  type CommandResult,
  type FileStream,
  type FileUpload,
  failureReply,
  type PackageDescription,
} from "../../contracts/index.ts";
import { toCommandError } from "../aas-input.ts";
import type { EngineContext } from "../engine-context.ts";
import { releasePackageFiles } from "../files/file-holders.ts";
import { decodeBase64, encodeBase64, safeFileName } from "../files/file-paths.ts";
import { checkIdsFree, type ImportRequest, prepareImport, writePrepared } from "../import/import-documents.ts";
import { claimForPackage, heldContent } from "../packages/package-claims.ts";
import {
  createPackageIntent,
  deletePackageIntent,
  type PackageIntent,
  readPackageIntent,
  writePackageIntent,
} from "../packages/package-intents.ts";
import {
  deletePackageRecord,
  findPackageRecord,
  listPackageRecords,
  PACKAGE_CONTENT_TYPE,
  type PackageRecord,
  packageKey,
  readPackageRecord,
  writePackageRecord,
} from "../packages/package-records.ts";
import { rollBackPackageWrite } from "../packages/package-rollback.ts";
import { resetUnderWay } from "../packages/reset-marker.ts";
import { pageCursor, pageLimit } from "../paging.ts";
import { removeIdentifiable } from "../remove-identifiable.ts";
import type { Handled } from "./handled.ts";

/**
 * AASX File Server API (AAS API digest §k) over the same model the other APIs serve:
 * - POST reads the package all-or-nothing (validated like any API write) and adds its shells,
 *   submodels, concept descriptions and files to the served model; the package itself is kept
 *   byte for byte. Content whose ids already exist is a 409, and nothing is added.
 * - PUT first reads the new package (a broken one changes nothing), then removes what the old one
 *   brought and adds the new content.
 * - DELETE removes the package and what it brought: its identifiables (as they are now, edits
 *   included) and its files, except files another package or an import also holds.
 * - A package's files never replace what is stored (docs/adr/0051, import/package-files.ts): a
 *   path taken by other bytes puts the package's file under a folder of its own, and the File
 *   values and thumbnail paths of its identifiables name that path.
 * - `aasIds` is what the client declared; without it, the ids of the package's shells.
 */

function description(record: PackageRecord): PackageDescription {
  return { packageId: record.packageId, aasIds: record.aasIds };
}

export async function getAllPackages(
  ctx: EngineContext,
  cmd: Command<"GetAllAASXPackageIds">,
): Promise<Handled<CommandResult<"GetAllAASXPackageIds">>> {
  const { aasId, page } = cmd.params;
  const limit = pageLimit(page);
  const cursor = pageCursor(page);
  // Packages are opaque bundles: one right shows all of them or none (access/command-access.ts).
  if (ctx.access !== undefined && !ctx.access.readablePackages) return { value: { items: [] } };
  let after: string | undefined;
  if (cursor !== undefined) {
    try {
      after = decodeBase64Url(cursor);
    } catch {
      throw new CommandError("bad-request", `Invalid cursor '${echoed(cursor)}'`);
    }
  }
  const records = (await listPackageRecords(ctx.fileStore))
    .filter((record) => after === undefined || record.packageId > after)
    .filter((record) => aasId === undefined || record.aasIds.includes(aasId));
  const items = records.slice(0, limit).map(description);
  return {
    value: records.length > limit ? { items, cursor: encodeBase64Url(items[items.length - 1]!.packageId) } : { items },
  };
}

export async function getPackage(
  ctx: EngineContext,
  cmd: Command<"GetAASXByPackageId">,
): Promise<Handled<CommandResult<"GetAASXByPackageId">>> {
  const record = await readPackageRecord(ctx.fileStore, cmd.params.packageId);
  const stored = await ctx.fileStore.get(packageKey(record.packageId));
  if (!stored) throw new CommandError("not-found", `AASX package '${echoed(record.packageId)}' not found`);
  return {
    value: { fileName: record.fileName, contentType: PACKAGE_CONTENT_TYPE, contentBase64: encodeBase64(stored.bytes) },
  };
}

/** Slices of a stored package as it leaves (StoreClient.stream: chunked over NATS, written as it goes over HTTP). */
const PACKAGE_CHUNK_BYTES = 256 * 1024;

/**
 * GET /packages/{id} as a stream (docs/adr/0037): the package leaves in slices as the client reads
 * them, instead of as one base64 reply, which held it about four times over in each process.
 */
export async function streamPackage(ctx: EngineContext, cmd: Command<"GetAASXByPackageId">): Promise<FileStream> {
  const record = await readPackageRecord(ctx.fileStore, cmd.params.packageId);
  const stored = await ctx.fileStore.get(packageKey(record.packageId));
  if (!stored) throw new CommandError("not-found", `AASX package '${echoed(record.packageId)}' not found`);
  const bytes = stored.bytes;
  return {
    fileName: record.fileName,
    contentType: PACKAGE_CONTENT_TYPE,
    chunks: (async function* () {
      for (let at = 0; at < bytes.length; at += PACKAGE_CHUNK_BYTES) yield bytes.subarray(at, at + PACKAGE_CHUNK_BYTES);
    })(),
  };
}

export async function postPackage(
  ctx: EngineContext,
  cmd: Command<"PostAASXPackage">,
): Promise<Handled<CommandResult<"PostAASXPackage">>> {
  const record = await addPackage(ctx, cmd, randomUUID(), cmd.params.file, cmd.params.aasIds, undefined);
  return { value: description(record) };
}

export async function putPackage(ctx: EngineContext, cmd: Command<"PutAASXByPackageId">): Promise<Handled<null>> {
  const old = await readPackageRecord(ctx.fileStore, cmd.params.packageId);
  await refuseWhilePending(ctx, old.packageId);
  await addPackage(ctx, cmd, old.packageId, cmd.params.file, cmd.params.aasIds, old);
  return { value: null };
}

export async function deletePackage(ctx: EngineContext, cmd: Command<"DeleteAASXByPackageId">): Promise<Handled<null>> {
  const record = await readPackageRecord(ctx.fileStore, cmd.params.packageId);
  await refuseWhilePending(ctx, record.packageId);
  // A delete holds the package as a PUT does (holdPackage), so the two never interleave. Its intent
  // replaces the package with nothing: one left by a delete that died halfway is "rolled back" by
  // a sweep, which removes the rest of the content and the record, finishing the delete.
  const intent: PackageIntent = {
    packageId: record.packageId,
    writeId: randomUUID(),
    replaces: true,
    write: "delete",
    identifiables: [],
    fileKeys: [],
    fromSeq: await ctx.repository.currentSeq(),
    ...(cmd.origin !== undefined ? { origin: cmd.origin } : {}),
    ...(cmd.correlationId !== undefined ? { correlationId: cmd.correlationId } : {}),
  };
  await holdPackage(ctx, intent, record);
  const beating = ctx.packageIntents.begin(record.packageId, intent.writeId, ctx);
  try {
    await removeContent(ctx, record, cmd);
    await deletePackageRecord(ctx.fileStore, record.packageId);
  } catch (error) {
    // As before intents: the record names what is left, and the client's repeated DELETE removes it.
    await deletePackageIntent(ctx.fileStore, record.packageId).catch(() => undefined);
    throw error;
  } finally {
    beating.end();
  }
  await deletePackageIntent(ctx.fileStore, record.packageId).catch(() => undefined);
  return { value: null };
}

/**
 * A PUT of the package is under way, or one was interrupted and waits for its rollback: a second
 * PUT or a DELETE now would work on content the first one is still changing (or taking back).
 * A dead write's intent is looked at by a sweep first, so a client retrying after the bound finds
 * it gone.
 */
async function refuseWhilePending(ctx: EngineContext, packageId: string): Promise<void> {
  if ((await readPackageIntent(ctx.fileStore, packageId)) === undefined) return;
  await ctx.packageIntents.sweep();
  if ((await readPackageIntent(ctx.fileStore, packageId)) === undefined) return;
  throw pendingConflict(ctx, packageId);
}

function pendingConflict(ctx: EngineContext, packageId: string): CommandError {
  return new CommandError(
    "conflict",
    `AASX package '${echoed(packageId)}' is being replaced or deleted, or such a write was interrupted and is being rolled back or finished (within ${minutes(ctx.packageIntents.rollbackWithinMs)} min); repeat the request then`,
  );
}

/**
 * Before a write changes anything: its intent is created, which only one write of a package can
 * do. refuseWhilePending alone let two PUTs that both looked before either wrote run together, each
 * removing and writing content, and the one that finished second was answered that it "stood still
 * and was taken for dead" (a black-box finding). A PUT or DELETE then checks that the record it
 * read is still the package's: one that read it before another write completed would remove the
 * old content (gone already) and leave the other's content held by no package.
 */
async function holdPackage(ctx: EngineContext, intent: PackageIntent, read: PackageRecord | undefined): Promise<void> {
  if (!(await createPackageIntent(ctx.fileStore, intent))) throw pendingConflict(ctx, intent.packageId);
  // Marked, now looked for a reset (packages/reset-marker.ts): none runs beside a package write.
  if (await resetUnderWay(ctx.fileStore, Date.now())) {
    await deletePackageIntent(ctx.fileStore, intent.packageId).catch(() => undefined);
    throw new CommandError(
      "conflict",
      "The server is being reset (DELETE /reset): repeat the request once the reset is over",
    );
  }
  if (read === undefined) return;
  const now = await findPackageRecord(ctx.fileStore, intent.packageId).catch(async (error: unknown) => {
    await deletePackageIntent(ctx.fileStore, intent.packageId).catch(() => undefined);
    throw error;
  });
  if (JSON.stringify(now) === JSON.stringify(read)) return;
  await deletePackageIntent(ctx.fileStore, intent.packageId).catch(() => undefined);
  throw new CommandError(
    now === undefined ? "not-found" : "conflict",
    now === undefined
      ? `AASX package '${echoed(intent.packageId)}' not found`
      : `AASX package '${echoed(intent.packageId)}' was replaced by another request meanwhile; repeat the request to replace it again`,
  );
}

/**
 * POST and PUT: the new content is read and checked whole (nothing written), then its write is
 * announced in an intent (packages/package-intents.ts) before anything changes, claimed, and
 * committed in batches; the package record comes last and the intent goes. A write that fails
 * after the intent takes back what it wrote at once (packages/package-rollback.ts); if even that
 * fails (the store still away), the intent stays and a sweep rolls it back later, in whichever
 * process runs one (packages/stale-package-intents.ts).
 */
async function addPackage(
  ctx: EngineContext,
  cmd: Command<"PostAASXPackage" | "PutAASXByPackageId">,
  packageId: string,
  file: FileUpload,
  aasIds: string[] | undefined,
  replacing: PackageRecord | undefined,
): Promise<PackageRecord> {
  // An Identifier is 1 to 2000 characters (AAS metamodel; the PackageDescription's aasIds are ones).
  if (
    aasIds !== undefined &&
    (!Array.isArray(aasIds) || aasIds.some((id) => typeof id !== "string" || id === "" || id.length > 2000))
  ) {
    throw new CommandError("bad-request", "aasIds must be a list of AAS identifiers (1 to 2000 characters each)");
  }
  const bytes = decodeBase64(file?.contentBase64, "The package");
  const fileName = safeFileName(file.fileName);
  const request: ImportRequest = {
    documents: [{ source: fileName, format: "aasx", contentBase64: file.contentBase64 }],
    mode: "all-or-nothing",
    validate: ctx.validation.onCreate,
    origin: cmd.origin,
    correlationId: cmd.correlationId,
  };
  const prepared = await prepareImport(ctx, request);
  // Before anything is removed or written: a conflict with an identifiable the old content did not
  // bring (or no longer holds) is a 409 that leaves the old content, and the package record, as they were.
  const held = replacing ? await heldContent(ctx.fileStore, replacing) : [];
  await checkIdsFree(ctx, request, prepared, new Set(held.map((item) => item.id)));

  const writeId = randomUUID();
  // The events of its creations carry the command's correlation id (the gateway always sends one);
  // without one, the write's own id: a sweep after a crash finds what it created by it.
  request.correlationId = cmd.correlationId ?? writeId;
  const intent: PackageIntent = {
    packageId,
    writeId,
    replaces: replacing !== undefined,
    write: replacing !== undefined ? "put" : "post",
    identifiables: [...prepared.checker.ids()].map(({ kind, id }) => ({ kind, id })),
    fileKeys: [],
    fromSeq: await ctx.repository.currentSeq(),
    ...(cmd.origin !== undefined ? { origin: cmd.origin } : {}),
    correlationId: request.correlationId,
  };
  await holdPackage(ctx, intent, replacing);
  const beating = ctx.packageIntents.begin(packageId, intent.writeId, ctx);
  try {
    try {
      if (replacing) await removeContent(ctx, replacing, cmd, held);
      // Claimed once committed, batch by batch: a rollback removes what the package holds, and it
      // holds only what it wrote. Claimed before, a write that lost an id to a concurrent post (or
      // to a client creating it after a crash) took the other's identifiable with it when it was
      // rolled back (a black-box finding). A crash between a batch and its claims leaves that
      // batch unclaimed: at most one batch stays behind, never someone else's data goes.
      const result = await writePrepared(
        ctx,
        request,
        prepared,
        { packageId },
        async (keys) => {
          intent.fileKeys = [...keys];
          await writePackageIntent(ctx.fileStore, intent);
        },
        (written) => claimForPackage(ctx.fileStore, packageId, written),
      );
      const record: PackageRecord = {
        packageId,
        fileName,
        aasIds: aasIds ?? result.written.filter((item) => item.kind === "shell").map((item) => item.id),
        written: result.written,
        claims: true,
        fileKeys: result.fileKeys,
        writeId: intent.writeId,
      };
      // A write that stood still past the bound (a stalled process) may have been rolled back by a
      // sweep meanwhile: it must not write a record naming content that is gone.
      if ((await readPackageIntent(ctx.fileStore, packageId))?.writeId !== intent.writeId)
        throw new CommandError(
          "unavailable",
          `The write of AASX package '${echoed(packageId)}' stood still longer than ${Math.ceil(ctx.packageIntents.staleMs / 1000)} s and was taken for dead`,
        );
      await writePackageRecord(ctx.fileStore, record, bytes);
      await result.placed?.confirmShared();
      // Its record is written: the write is complete, whether or not its intent goes now (a sweep
      // finding the intent beside a record of the same write only deletes the intent).
      await deletePackageIntent(ctx.fileStore, packageId).catch(() => undefined);
      return record;
    } catch (error) {
      const wrote = replacing !== undefined || prepared.result.written.length > 0;
      throw await rolledBack(ctx, intent, prepared.result.taken, prepared.result.written, error, wrote);
    }
  } finally {
    beating.end();
  }
}

/** The write failed: what it wrote is taken back at once, and the error says whether that worked. */
async function rolledBack(
  ctx: EngineContext,
  intent: PackageIntent,
  taken: readonly { kind: string; id: string }[],
  /** What this write committed, as its commits answered: removed even where a claim did not follow. */
  written: PackageIntent["identifiables"],
  error: unknown,
  /** Something was committed or removed: the answer says what became of it. */
  wrote: boolean,
): Promise<unknown> {
  let note: string;
  let rolled = true;
  try {
    // The engine's own commits: the caller's deadline may be what failed the write.
    await rollBackPackageWrite(
      { ...ctx, commit: ctx.engineCommit },
      intent,
      new Set(taken.map(({ kind, id }) => `${kind}:${id}`)),
      written,
    );
    note = `the package's content was rolled back: ${intent.replaces ? "the package is removed (its old content was already gone)" : "nothing of it is left"}`;
  } catch (rollbackError) {
    rolled = false;
    // This process knows what it committed (claims may be missing for the last batch): its sweep
    // takes that back as soon as the store answers.
    ctx.packageIntents.failed(intent.writeId, written, new Set(taken.map(({ kind, id }) => `${kind}:${id}`)));
    note = `rolling back the package's content failed too (${(rollbackError as Error).message}): it is rolled back once the store answers again, within about ${minutes(ctx.packageIntents.rollbackWithinMs)} min`;
  }
  const { error: failure } = failureReply(toCommandError(error));
  // An unexpected error keeps its stack (shown with includeErrorDetails); its message is internal anyway.
  // A refusal before anything was written keeps its own words: nothing became of anything.
  if (failure.code === "internal" || (!wrote && rolled)) return error;
  return new CommandError(failure.code, `${failure.message}; ${note}`, {
    ...(failure.path !== undefined ? { path: failure.path } : {}),
    ...(failure.details !== undefined ? { details: failure.details } : {}),
  });
}

/**
 * What a package brought, removed again; files another package or an import holds stay, and so do
 * identifiables it no longer holds (deleted since, and perhaps created again by someone else:
 * package-claims.ts).
 */
async function removeContent(
  ctx: EngineContext,
  record: PackageRecord,
  cmd: Command,
  held?: PackageRecord["written"],
): Promise<void> {
  for (const { kind, id } of held ?? (await heldContent(ctx.fileStore, record)))
    await removeIdentifiable(ctx, kind, id, cmd.origin, cmd.correlationId);
  await releasePackageFiles(ctx.fileStore, record.packageId, record.fileKeys);
}

function minutes(ms: number): number {
  return Math.ceil(ms / 60_000);
}
