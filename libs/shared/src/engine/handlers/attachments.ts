import type { ElementJson } from "../../aas/index.ts";
import { echoed } from "../../aas/index.ts";
import { type ChangeEvent, type Command, CommandError, type CommandResult } from "../../contracts/index.ts";
import { checkIdShortPath, readJsonable } from "../aas-input.ts";
import { eventDraft } from "../commit-runner.ts";
import { type LoadedElement, loadElement, notFoundElement, touchOps } from "../element-io.ts";
import type { EngineContext } from "../engine-context.ts";
import { uploadContentType } from "../files/content-types.ts";
import { decodeBase64, elementOwner, encodeBase64, fileKeyOf, fileNameOf, safeFileName } from "../files/file-paths.ts";
import { heldUpload, releaseUploads } from "../files/released-uploads.ts";
import { mayReadUpload } from "../files/upload-access.ts";
import { discardUncommittedUpload, storeUpload } from "../files/upload-store.ts";
import { requireIdentifiable } from "../identifiables.ts";
import { checkPreconditions, itemOf } from "../preconditions.ts";
import { checkSubmodelScope } from "../submodel-scope.ts";
import { elementTarget } from "../write-targets.ts";
import type { Handled } from "./handled.ts";

/**
 * Submodel API …/submodel-elements/{idShortPath}/attachment (spec §4.1.11): the bytes behind a
 * File element. The File's `value` is the model path of its content and `contentType` its type;
 * the bytes are in the FileStore under that path. Only File elements have an attachment (405
 * otherwise; a Blob's bytes come with extent=withBlobValue).
 */

type FileScope = { submodelId: string; aasId?: string; idShortPath: string };

async function loadFileElement(ctx: EngineContext, scope: FileScope): Promise<LoadedElement> {
  checkIdShortPath(scope.idShortPath);
  await checkSubmodelScope(ctx, scope);
  const loaded = await loadElement(ctx.repository, scope.submodelId, scope.idShortPath, 0);
  if (!loaded) {
    await requireIdentifiable(ctx, "submodel", scope.submodelId);
    throw notFoundElement(scope.submodelId, scope.idShortPath);
  }
  if (loaded.element.modelType !== "File") {
    throw new CommandError(
      "method-not-allowed",
      `Only File elements have an attachment; '${echoed(scope.idShortPath)}' is a ${String(loaded.element.modelType)}`,
    );
  }
  return loaded;
}

export async function getFileByPath(
  ctx: EngineContext,
  cmd: Command<"GetFileByPath">,
): Promise<Handled<CommandResult<"GetFileByPath">>> {
  const { element, record } = await loadFileElement(ctx, cmd.params);
  const value = typeof element.value === "string" ? element.value : undefined;
  if (value === undefined || value.trim() === "")
    throw new CommandError("not-found", `The File '${echoed(cmd.params.idShortPath)}' has no content`);
  const key = fileKeyOf(value);
  if (key === undefined)
    throw new CommandError(
      "not-found",
      `The File '${echoed(cmd.params.idShortPath)}' refers to '${value}', which is not stored on this server`,
    );
  const stored = await ctx.fileStore.get(key);
  // Another element's upload the caller may not read is "not stored" to them (upload-access.ts).
  if (
    !stored ||
    !(await mayReadUpload(ctx, stored, {
      submodelId: cmd.params.submodelId,
      idShortPath: cmd.params.idShortPath,
      orderKey: record.orderKey,
    }))
  )
    throw new CommandError(
      "not-found",
      `The content of the File '${echoed(cmd.params.idShortPath)}' ('${value}') is not stored on this server`,
    );
  const contentType =
    typeof element.contentType === "string" && element.contentType !== "" ? element.contentType : stored.contentType;
  return {
    value: { fileName: fileNameOf(value), contentType, contentBase64: encodeBase64(stored.bytes) },
    revision: record.revision,
    ...(itemOf(cmd.params.idShortPath, record) !== undefined ? { item: record.orderKey } : {}),
  };
}

export async function putFileByPath(ctx: EngineContext, cmd: Command<"PutFileByPath">): Promise<Handled<null>> {
  const { submodelId, idShortPath: path, file, preconditions } = cmd.params;
  const bytes = decodeBase64(file?.contentBase64, "The attachment");
  const fileName = safeFileName(file.fileName);
  const contentType = uploadContentType(file.contentType, fileName);
  const owner = elementOwner(submodelId, path);
  // Checked before the bytes are stored, so a wrong target leaves nothing behind.
  const target = await loadFileElement(ctx, cmd.params);
  // Its orderKey names the File itself, also once a list item before it went (upload-access.ts).
  const fileOwner = { submodelId, idShortPath: path, orderKey: target.record.orderKey };
  const modelPath = await storeUpload(ctx, "files", owner, fileOwner, fileName, { contentType, bytes });
  let previous: string | undefined;
  let event: ChangeEvent;
  try {
    event = await ctx.commit(elementTarget(submodelId, path), async () => {
      const old = await loadFileElement(ctx, cmd.params);
      checkPreconditions(preconditions, old.record.revision, itemOf(path, old.record));
      previous = valueOf(old);
      const updated = readJsonable(
        { ...old.element, value: modelPath, contentType },
        "SubmodelElement",
        ctx.validation.onUpdate,
      ) as ElementJson;
      return fileCommit(ctx, cmd, updated, old);
    });
  } catch (error) {
    await discardUncommittedUpload(ctx, modelPath, error);
    throw error;
  }
  // A delete of the submodel that read its uploads before this commit releases this one too.
  ctx.uploadsDuringDeletes.committed(submodelId, { idShortPath: path, value: modelPath });
  // Committed: what the File named before goes unless another File names it (released-uploads.ts).
  if (previous !== undefined)
    await releaseUploads(ctx, submodelId, heldUpload(path, previous), new Map([[path, modelPath]]));
  return { value: null, revision: event.revision };
}

function valueOf(loaded: LoadedElement): string | undefined {
  return typeof loaded.element.value === "string" ? loaded.element.value : undefined;
}

/**
 * DELETE …/attachment (answers 200): the File keeps its contentType and loses its value. Its bytes
 * are deleted when they were uploaded (for this element, or for another of its submodel: a list
 * item moved up an index names its old index's upload) and no other File of the submodel names
 * them; bytes that came with a package may be shared by other File elements and stay until /reset
 * or the package is deleted.
 */
export async function deleteFileByPath(ctx: EngineContext, cmd: Command<"DeleteFileByPath">): Promise<Handled<null>> {
  const { submodelId, idShortPath: path, preconditions } = cmd.params;
  let previous: string | undefined;
  const event = await ctx.commit(elementTarget(submodelId, path), async () => {
    const old = await loadFileElement(ctx, cmd.params);
    previous = valueOf(old);
    // No content to delete is a 404 whatever the preconditions say (RFC 9110 §13.2.1).
    if (previous === undefined) throw new CommandError("not-found", `The File '${echoed(path)}' has no content`);
    checkPreconditions(preconditions, old.record.revision, itemOf(path, old.record));
    const { value: _removed, ...rest } = old.element;
    return fileCommit(ctx, cmd, readJsonable(rest, "SubmodelElement", ctx.validation.onUpdate) as ElementJson, old);
  });
  await releaseUploads(ctx, submodelId, heldUpload(path, previous));
  return { value: null, revision: event.revision };
}

function fileCommit(
  ctx: EngineContext,
  cmd: Command<"PutFileByPath" | "DeleteFileByPath">,
  updated: ElementJson,
  old: LoadedElement,
) {
  const { submodelId, idShortPath: path } = cmd.params;
  return {
    commit: {
      preconditions: [
        { on: "element" as const, submodelId, path, revision: old.record.revision, orderKey: old.record.orderKey },
      ],
      ops: [
        { op: "put-element" as const, submodelId, path, json: JSON.stringify(updated) },
        ...touchOps(submodelId, path),
      ],
      event: eventDraft(
        {
          kind: "element.value-changed",
          id: submodelId,
          idShortPath: path,
          origin: cmd.origin,
          correlationId: cmd.correlationId,
        },
        updated,
        ctx.clock.now(),
      ),
    },
  };
}
