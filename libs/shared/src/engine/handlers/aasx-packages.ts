import { randomUUID } from "node:crypto";
import { decodeBase64Url, echoed, encodeBase64Url } from "../../aas/index.ts";
import {
  type Command,
  CommandError,
  type CommandResult,
  type FileStream,
  type FileUpload,
  type PackageDescription,
} from "../../contracts/index.ts";
import type { EngineContext } from "../engine-context.ts";
import { releasePackageFiles } from "../files/file-holders.ts";
import { decodeBase64, encodeBase64, safeFileName } from "../files/file-paths.ts";
import { checkIdsFree, type ImportRequest, prepareImport, writePrepared } from "../import/import-documents.ts";
import { claimForPackage, heldByPackage } from "../packages/package-claims.ts";
import {
  deletePackageRecord,
  listPackageRecords,
  PACKAGE_CONTENT_TYPE,
  type PackageRecord,
  packageKey,
  readPackageRecord,
  writePackageRecord,
} from "../packages/package-records.ts";
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
  await addPackage(ctx, cmd, old.packageId, cmd.params.file, cmd.params.aasIds, old);
  return { value: null };
}

export async function deletePackage(ctx: EngineContext, cmd: Command<"DeleteAASXByPackageId">): Promise<Handled<null>> {
  const record = await readPackageRecord(ctx.fileStore, cmd.params.packageId);
  await removeContent(ctx, record, cmd);
  await deletePackageRecord(ctx.fileStore, record.packageId);
  return { value: null };
}

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
  if (replacing) {
    // Before anything is removed: a conflict with an identifiable the old content did not bring (or
    // no longer holds) is a 409 that leaves the old content, and the package record, as they were.
    const held = await heldContent(ctx, replacing);
    await checkIdsFree(ctx, request, prepared, new Set(held.map((item) => item.id)));
    await removeContent(ctx, replacing, cmd, held);
  }
  const result = await writePrepared(ctx, request, prepared, "package");
  await claimForPackage(ctx.fileStore, packageId, result.written);
  const record: PackageRecord = {
    packageId,
    fileName,
    aasIds: aasIds ?? result.written.filter((item) => item.kind === "shell").map((item) => item.id),
    written: result.written,
    claims: true,
    fileKeys: result.fileKeys,
  };
  await writePackageRecord(ctx.fileStore, record, bytes);
  await result.placed?.confirmShared();
  return record;
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
  for (const { kind, id } of held ?? (await heldContent(ctx, record)))
    await removeIdentifiable(ctx, kind, id, cmd.origin, cmd.correlationId);
  await releasePackageFiles(ctx.fileStore, record.packageId, record.fileKeys);
}

/** The identifiables of `record.written` the package still holds (all of them for records older than claims). */
async function heldContent(ctx: EngineContext, record: PackageRecord): Promise<PackageRecord["written"]> {
  if (record.claims !== true) return record.written;
  const held: PackageRecord["written"] = [];
  for (const item of record.written)
    if (await heldByPackage(ctx.fileStore, record.packageId, item.kind, item.id)) held.push(item);
  return held;
}
