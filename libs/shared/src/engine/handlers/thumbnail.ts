import { echoed } from "../../aas/index.ts";
import { type Command, CommandError, type CommandResult } from "../../contracts/index.ts";
import type { EngineContext } from "../engine-context.ts";
import { contentTypeByName, OCTET_STREAM, uploadContentType } from "../files/content-types.ts";
import { decodeBase64, encodeBase64, fileKeyOf, fileNameOf, safeFileName } from "../files/file-paths.ts";
import { mayReadUpload } from "../files/upload-access.ts";
import { discardUncommittedUpload, storeUpload } from "../files/upload-store.ts";
import { requireIdentifiable } from "../identifiables.ts";
import { rewriteShell } from "../shell-rewrite.ts";
import type { Handled } from "./handled.ts";

/**
 * AAS API …/asset-information/thumbnail: the file behind assetInformation.defaultThumbnail
 * (a Resource: `path`, optional `contentType`). Writes rewrite the shell (one `shell.updated`).
 */

interface Resource {
  path?: unknown;
  contentType?: unknown;
}

function thumbnailOf(shell: Record<string, unknown>): Resource | undefined {
  const info = shell.assetInformation as { defaultThumbnail?: Resource } | undefined;
  return info?.defaultThumbnail;
}

export async function getThumbnail(
  ctx: EngineContext,
  cmd: Command<"GetThumbnail">,
): Promise<Handled<CommandResult<"GetThumbnail">>> {
  const { aasId } = cmd.params;
  const stored = await requireIdentifiable(ctx, "shell", aasId);
  const thumbnail = thumbnailOf(JSON.parse(stored.json));
  const path = typeof thumbnail?.path === "string" ? thumbnail.path : undefined;
  if (path === undefined)
    throw new CommandError("not-found", `The Asset Administration Shell '${echoed(aasId)}' has no thumbnail`);
  const key = fileKeyOf(path);
  const file = key === undefined ? undefined : await ctx.fileStore.get(key);
  // Another owner's upload the caller may not read is "not stored" to them (upload-access.ts).
  if (!file || !(await mayReadUpload(ctx, file, { shellId: aasId })))
    throw new CommandError("not-found", `The thumbnail of '${echoed(aasId)}' ('${path}') is not stored on this server`);
  // Spec §4.1.11: a thumbnail without contentType must not fail; the stored type or the name tells.
  const declared =
    typeof thumbnail?.contentType === "string" && thumbnail.contentType !== "" ? thumbnail.contentType : undefined;
  const contentType =
    declared ??
    (file.contentType !== OCTET_STREAM ? file.contentType : undefined) ??
    contentTypeByName(fileNameOf(path)) ??
    OCTET_STREAM;
  return {
    value: { fileName: fileNameOf(path), contentType, contentBase64: encodeBase64(file.bytes) },
    revision: stored.revision,
  };
}

export async function putThumbnail(ctx: EngineContext, cmd: Command<"PutThumbnail">): Promise<Handled<null>> {
  const { aasId, file, preconditions } = cmd.params;
  const bytes = decodeBase64(file?.contentBase64, "The thumbnail");
  const fileName = safeFileName(file.fileName);
  const contentType = uploadContentType(file.contentType, fileName);
  const owner = { shellId: aasId };
  await requireIdentifiable(ctx, "shell", aasId);
  const path = await storeUpload(ctx, "thumbnails", aasId, owner, fileName, { contentType, bytes });
  try {
    // The thumbnail it replaces is released by the rewrite, once committed (released-thumbnails.ts).
    const { event } = await rewriteShell(ctx, {
      aasId,
      preconditions,
      origin: cmd.origin,
      correlationId: cmd.correlationId,
      verify: "brought",
      change: (shell) => {
        const info = (shell.assetInformation ?? {}) as Record<string, unknown>;
        return { ...shell, assetInformation: { ...info, defaultThumbnail: { path, contentType } } };
      },
    });
    return { value: null, revision: event.revision };
  } catch (error) {
    await discardUncommittedUpload(ctx, path, error);
    throw error;
  }
}

/** DELETE (answers 200): the shell loses its defaultThumbnail; the rewrite releases uploaded bytes. */
export async function deleteThumbnail(ctx: EngineContext, cmd: Command<"DeleteThumbnail">): Promise<Handled<null>> {
  const { aasId, preconditions } = cmd.params;
  const { event } = await rewriteShell(ctx, {
    aasId,
    preconditions,
    origin: cmd.origin,
    correlationId: cmd.correlationId,
    verify: "brought",
    requirePart: (shell) => {
      if (thumbnailOf(shell) === undefined)
        throw new CommandError("not-found", `The Asset Administration Shell '${echoed(aasId)}' has no thumbnail`);
    },
    change: (shell) => {
      const { defaultThumbnail: _removed, ...info } = shell.assetInformation as Record<string, unknown>;
      return { ...shell, assetInformation: info };
    },
  });
  return { value: null, revision: event.revision };
}
