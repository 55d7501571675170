import { type LazyAasxPart, writeAasxStream } from "../../aas/index.ts";
import type { FileStream } from "../../contracts/index.ts";
import type { EngineContext } from "../engine-context.ts";
import { fileKeyOf, partNameOf } from "../files/file-paths.ts";
import { sameOwner, uploadReadCheck } from "../files/upload-access.ts";
import type { FileOwner, StoredFile } from "../ports/index.ts";
import { type EnvironmentSelection, environmentItems } from "./environment-items.ts";
import { environmentText, utf8Chunks } from "./environment-text.ts";
import { fileElementsIn, filePathsIn, isCarriable, omittedWarning } from "./write-environment.ts";

type Json = Record<string, unknown>;

/**
 * The selected environment as an AASX package, streamed (docs/adr/0034). The package must say in a
 * header which File values it leaves out (write-environment.ts: a path whose file is not stored, or
 * cannot be a part), so the model is read twice, both times in bounded batches:
 *   1. every File value and default thumbnail, to learn which files are carried (their paths and
 *      content types only: the bytes are read again when written);
 *   2. the model again, each item without the values left out, written as the spec part while it
 *      is read; then the files, one at a time.
 * Writes between the passes: a file deleted meanwhile breaks the stream; a File added meanwhile
 * keeps its value but its file is not carried (each submodel is consistent at its own revision).
 * An upload is carried only when the caller may read it through a File or shell that names it, as
 * GET …/attachment and …/thumbnail decide (files/upload-access.ts); otherwise it is left out and
 * named in the warning like a file that is not stored, so the package never holds more than the
 * caller could download one file at a time.
 */
export async function streamPackage(
  ctx: EngineContext,
  selection: EnvironmentSelection,
  content: { fileName: string; contentType: string },
): Promise<FileStream> {
  const first = await environmentItems(ctx, selection);
  const carried = new Map<string, LazyAasxPart>();
  // What the store holds at each key looked at (without its bytes; null: nothing).
  const looked = new Map<string, Omit<StoredFile, "bytes"> | null>();
  const seen = new Set<string>();
  const mayRead = uploadReadCheck(ctx);
  let thumbnail: LazyAasxPart | undefined;
  const add = async (modelPath: string, via: FileOwner): Promise<LazyAasxPart | undefined> => {
    const partName = partNameOf(modelPath);
    const key = fileKeyOf(modelPath);
    if (key !== undefined) seen.add(modelPath);
    if (partName === undefined || key === undefined || !isCarriable(partName)) return undefined;
    if (carried.has(key)) return carried.get(key);
    let stored = looked.get(key);
    if (stored === undefined) {
      const file = await ctx.fileStore.get(key);
      stored = file ? { contentType: file.contentType, ...(file.owner ? { owner: file.owner } : {}) } : null;
      looked.set(key, stored);
    }
    // Another File or shell naming the same path may still be one the caller reads it through.
    if (stored === null || !(await mayRead(stored, via))) return undefined;
    const checkedOwner = stored.owner;
    const part: LazyAasxPart = {
      path: partName,
      contentType: stored.contentType,
      bytes: async () => {
        const again = await ctx.fileStore.get(key);
        if (!again) throw new Error(`the file '${modelPath}' was deleted while the package was written`);
        // Whose file it is was checked in the first pass: bytes of another owner are not carried.
        const sameAsChecked =
          again.owner === undefined || checkedOwner === undefined
            ? again.owner === checkedOwner
            : sameOwner(again.owner, checkedOwner);
        if (!sameAsChecked) throw new Error(`the file '${modelPath}' was replaced while the package was written`);
        return again.bytes;
      },
    };
    carried.set(key, part);
    return part;
  };
  for await (const submodel of first.submodels)
    for (const { value, idShortPath } of fileElementsIn(submodel))
      await add(value, { submodelId: submodel.id as string, idShortPath });
  for await (const shell of first.shells) {
    const path = thumbnailPathOf(shell);
    if (typeof path !== "string") continue;
    // The package thumbnail is the first shell's, as the AASX Package Explorer does it.
    const part = await add(path, { shellId: shell.id as string });
    thumbnail ??= part;
  }

  let files = [...carried.values()];
  let keys = new Set(carried.keys());
  const packaged = (parts: LazyAasxPart[], thumb: LazyAasxPart | undefined) => {
    const second = environmentItems(ctx, selection);
    // Never awaited when this attempt is given up (below): its failure would be nobody's.
    second.catch(() => undefined);
    const strip = async function* (which: "shells" | "submodels"): AsyncIterable<Json> {
      for await (const item of (await second)[which]) yield withoutMissingParts(item, keys);
    };
    const text = environmentText(
      { shells: strip("shells"), submodels: strip("submodels"), conceptDescriptions: conceptDescriptions(second) },
      "xml",
    );
    return writeAasxStream({ environmentXml: utf8Chunks(text, 256 * 1024), files: parts, thumbnail: thumb });
  };
  let chunks: AsyncIterable<Uint8Array>;
  try {
    chunks = await firstChecked(packaged(files, thumbnail));
  } catch {
    // A part name the writer still refuses: the model matters more than its files.
    files = [];
    keys = new Set();
    chunks = packaged([], undefined);
  }
  const omitted = [...seen].filter((path) => !keys.has(fileKeyOf(path)!));
  return { ...content, ...(omitted.length > 0 ? { warnings: [omittedWarning(omitted)] } : {}), chunks };
}

async function* conceptDescriptions(items: ReturnType<typeof environmentItems>): AsyncIterable<Json> {
  yield* (await items).conceptDescriptions;
}

function thumbnailPathOf(shell: Json): unknown {
  return (shell.assetInformation as { defaultThumbnail?: { path?: unknown } } | undefined)?.defaultThumbnail?.path;
}

/**
 * The stream with its first chunk already produced: writeAasxStream checks the part names before
 * its first byte, so a refusal surfaces here, where the package can still be written without files.
 */
async function firstChecked(chunks: AsyncIterable<Uint8Array>): Promise<AsyncIterable<Uint8Array>> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  return (async function* () {
    if (first.done) return;
    yield first.value;
    for (;;) {
      const step = await iterator.next();
      if (step.done) return;
      yield step.value;
    }
  })();
}

/** A copy of one shell or submodel in which every package path names a carried part. */
function withoutMissingParts(item: Json, carried: ReadonlySet<string>): Json {
  const missing = (path: unknown): boolean => {
    if (typeof path !== "string") return false;
    const key = fileKeyOf(path);
    return key !== undefined && !carried.has(key);
  };
  const info = item.assetInformation as { defaultThumbnail?: { path?: unknown } } | undefined;
  const hasMissingFile = filePathsIn([item]).some(missing);
  if (!hasMissingFile && !(info?.defaultThumbnail && missing(info.defaultThumbnail.path))) return item;
  const copy = structuredClone(item);
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== "object" || value === null) return;
    const object = value as Json;
    if (object.modelType === "File" && missing(object.value)) delete object.value;
    for (const key of ["submodelElements", "value", "statements", "annotations"])
      if (Array.isArray(object[key])) visit(object[key]);
  };
  visit(copy);
  const copyInfo = copy.assetInformation as { defaultThumbnail?: { path?: unknown } } | undefined;
  if (copyInfo?.defaultThumbnail && missing(copyInfo.defaultThumbnail.path)) delete copyInfo.defaultThumbnail;
  return copy;
}
