import { childPath, childrenKey, type ElementJson } from "../../aas/index.ts";
import type { EngineContext } from "../engine-context.ts";
import type { StoredElement } from "../ports/index.ts";
import { fileKeyOf, isUploadPath } from "./file-paths.ts";
import { deleteUpload } from "./upload-store.ts";
import { uploadsMayBeStored } from "./uploads-mark.ts";

/**
 * The bytes a client uploaded for a File element (PUT …/attachment) belong to the File that names
 * them: when it goes (deleted, with its submodel or a container above it) or stops naming them (a
 * PUT, PATCH or $value PATCH of it, of a container above it or of its whole submodel gave it
 * another value, or none; a new attachment or a DELETE of it), they are deleted after the write
 * committed, once no File of the submodel names them. They were kept before, out of reach of every
 * API call but /reset, and a new File naming the old path served them again. Bytes a package or a
 * model brought have no owner and are never touched here (docs/adr/0051).
 */

/** An upload a File element holds: its path, and the value naming an upload folder. */
export interface HeldUpload {
  idShortPath: string;
  value: string;
}

/**
 * The upload a File at `idShortPath` holds with `value`, if it names one. Any upload folder counts,
 * not only the one of the File's own path: when a list item goes, the items behind it move up an
 * index and their Files name the folders of their old paths. Whose bytes they are is checked when
 * they are deleted (upload-store.ts deleteUpload: an upload of this submodel's elements).
 */
export function heldUpload(idShortPath: string, value: string | undefined): HeldUpload[] {
  return value !== undefined && isUploadPath("files", value) ? [{ idShortPath, value }] : [];
}

/** The uploads the File elements among `records` (an element's subtree, as stored) hold. */
export function uploadsHeldBy(records: readonly StoredElement[]): HeldUpload[] {
  const held: HeldUpload[] = [];
  for (const record of records) {
    // Most records are no File: skip them without parsing.
    if (!record.json.includes('"File"')) continue;
    const element = JSON.parse(record.json) as ElementJson;
    if (element.modelType === "File" && typeof element.value === "string")
      held.push(...heldUpload(record.path, element.value));
  }
  return held;
}

/** The File values of an element as written (with its children), by idShortPath. */
export function fileValuesOf(element: ElementJson, path: string): Map<string, string> {
  const values = new Map<string, string>();
  const visit = (item: ElementJson, itemPath: string): void => {
    if (item.modelType === "File" && typeof item.value === "string") values.set(itemPath, item.value);
    const key = childrenKey(item);
    const children = key === undefined ? undefined : item[key];
    if (!Array.isArray(children)) return;
    const inList = item.modelType === "SubmodelElementList";
    children.forEach((child, index) => {
      if (typeof child !== "object" || child === null) return;
      const idShort = (child as ElementJson).idShort;
      if (!inList && typeof idShort !== "string") return;
      visit(child as ElementJson, childPath(itemPath, inList ? { index } : { idShort: idShort as string }));
    });
  };
  visit(element, path);
  return values;
}

/** The File values of a submodel's elements as written (with their children), by idShortPath. */
export function fileValuesOfElements(elements: readonly ElementJson[]): Map<string, string> {
  const values = new Map<string, string>();
  for (const element of elements)
    if (typeof element.idShort === "string")
      for (const [path, value] of fileValuesOf(element, element.idShort)) values.set(path, value);
  return values;
}

/**
 * Deletes the held uploads no File names any more, after the write committed (`kept`: what the
 * written elements name now). An upload stays while any File of the submodel names it: one the
 * write moved (a File renamed, moved into a container, shifted in a list, two Files swapping
 * values), or another File a client pointed at it. Deciding by the owner's path alone deleted
 * bytes such Files still served. Only uploads about to go cost a read of the submodel, so a write
 * that keeps its Files' values reads nothing more.
 */
export async function releaseUploads(
  ctx: EngineContext,
  submodelId: string,
  held: readonly HeldUpload[],
  kept: ReadonlyMap<string, string> = new Map(),
): Promise<void> {
  // Compared as stored files, not as text: `file:///aasx/…` or a percent-escaped spelling names the same bytes.
  const keptKeys = new Set([...kept.values()].map(fileKeyOf));
  const leaving = held.filter((upload) => !keptKeys.has(fileKeyOf(upload.value)));
  if (leaving.length === 0) return;
  // A write naming one of them while the submodel is read keeps it (upload-claims.ts).
  const token = ctx.uploadClaims.started();
  const release = releaseUnnamed(ctx, submodelId, leaving, token)
    .catch(() => undefined)
    .finally(() => ctx.uploadClaims.ended());
  // The write has committed: its answer waits for the release only so long. Reading a submodel of
  // 20,000 elements takes 2–3 s on Redis, and a write answered after its command's budget is a 504
  // for a write that happened. Past the bound the bytes go a little after the answer.
  let bounded: NodeJS.Timeout | undefined;
  await Promise.race([
    release,
    new Promise<void>((resolve) => {
      bounded = setTimeout(resolve, RELEASE_ANSWER_BOUND_MS);
    }),
  ]);
  clearTimeout(bounded);
}

/** How long a write's answer waits for the release of its uploads (releaseUploads). */
export const RELEASE_ANSWER_BOUND_MS = 1000;

async function releaseUnnamed(
  ctx: EngineContext,
  submodelId: string,
  leaving: readonly HeldUpload[],
  token: number,
): Promise<void> {
  const stillNamed = new Set<string>();
  const wanted = leaving.map((upload) => fileKeyOf(upload.value)!);
  try {
    await eachRecordOf(ctx, submodelId, (records) => {
      for (const value of filesNaming(records, wanted)) stillNamed.add(value);
    });
  } catch {
    // The submodel cannot be read now: whether a File still names them is unknown, so the bytes stay.
    return;
  }
  for (const upload of leaving) {
    const key = fileKeyOf(upload.value)!;
    if (stillNamed.has(key)) continue;
    // Kept for a write in flight that names it: once that write settled, this looks again, so a
    // write that failed does not keep bytes no File names until /reset (upload-claims.ts).
    if (ctx.uploadClaims.deferTo(key, () => releaseUploads(ctx, submodelId, [upload]))) continue;
    if (ctx.uploadClaims.named(key, token)) continue;
    // Decided in this turn, with no await since the checks: a write naming it from now on waits for
    // the delete (upload-claims.ts deleted). The write is committed: a store that cannot delete now
    // leaves the bytes, as before.
    await ctx.uploadClaims.deleted(key, () =>
      deleteUpload(ctx, upload.value, { submodelId, idShortPath: upload.idShortPath }).catch(() => undefined),
    );
  }
}

/** Which of the stored files `keys` the File elements among `records` name. */
function filesNaming(records: readonly StoredElement[], keys: readonly string[]): string[] {
  const named: string[] = [];
  for (const record of records) {
    if (!record.json.includes('"File"')) continue;
    const element = JSON.parse(record.json) as ElementJson;
    if (element.modelType !== "File" || typeof element.value !== "string") continue;
    const key = fileKeyOf(element.value);
    if (key !== undefined && keys.includes(key)) named.push(key);
  }
  return named;
}

/** Every upload the File elements of a submodel hold, read page by page (a submodel may be large). */
export async function uploadsHeldInSubmodel(ctx: EngineContext, submodelId: string): Promise<HeldUpload[]> {
  const held: HeldUpload[] = [];
  // With no upload stored at all, a submodel of a million elements is not read through for nothing.
  if (!(await uploadsMayBeStored(ctx.fileStore))) return held;
  await eachRecordOf(ctx, submodelId, (records) => held.push(...uploadsHeldBy(records)));
  return held;
}

/** The element records of a submodel, a page at a time, containers' children included. */
async function eachRecordOf(
  ctx: EngineContext,
  submodelId: string,
  visit: (records: readonly StoredElement[]) => void,
): Promise<void> {
  const parents = [""];
  while (parents.length > 0) {
    const parentPath = parents.pop()!;
    let cursor: string | undefined;
    do {
      const page = await ctx.repository.listChildren(submodelId, parentPath, {
        limit: 1000,
        ...(cursor ? { cursor } : {}),
      });
      visit(page.items);
      for (const record of page.items)
        if (
          /"modelType":"(SubmodelElementCollection|SubmodelElementList|Entity|AnnotatedRelationshipElement)"/.test(
            record.json,
          )
        )
          parents.push(record.path);
      cursor = page.cursor;
    } while (cursor !== undefined);
  }
}
