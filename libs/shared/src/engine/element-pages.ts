import { assembleElement, type ElementJson } from "../aas/index.ts";
import type { PageRequest } from "../contracts/index.ts";
import { asCursorError, keptItemFollows, pageCursor, pageLimit } from "./paging.ts";
import type { Repository, StoredElement } from "./ports/index.ts";

export interface RootElement {
  record: StoredElement;
  /** The stored shallow element; a container without its children (and without an empty children key). */
  shallow: ElementJson;
}

/**
 * A page of a submodel's top-level elements, keyset-paged and filtered the way listFiltered pages
 * identifiables: each read asks for exactly the number of items still missing, so the cursor always
 * points right after the last element considered and inserts/deletes between pages never repeat or
 * skip one. Used by `/submodel-elements` and its `$value` (which skips Operation and Capability),
 * `$metadata` and `$reference` forms.
 */
export async function pageRootElements(
  repository: Repository,
  submodelId: string,
  page: PageRequest | undefined,
  keep: (shallow: ElementJson) => boolean = () => true,
  exactEnd = false,
): Promise<{ roots: RootElement[]; cursor?: string }> {
  const limit = pageLimit(page);
  let cursor = pageCursor(page);
  const roots: RootElement[] = [];
  try {
    do {
      const batch = await repository.listChildren(submodelId, "", { cursor, limit: limit - roots.length });
      for (const record of batch.items) {
        const shallow = assembleElement(
          [{ path: record.path, shallow: JSON.parse(record.json) as ElementJson }],
          record.path,
        )!;
        if (keep(shallow)) roots.push({ record, shallow });
      }
      cursor = batch.cursor;
    } while (roots.length < limit && cursor !== undefined);
    const shallowOf = (record: StoredElement) =>
      assembleElement([{ path: record.path, shallow: JSON.parse(record.json) as ElementJson }], record.path)!;
    if (
      exactEnd &&
      cursor !== undefined &&
      !(await keptItemFollows(
        (p) => repository.listChildren(submodelId, "", p),
        cursor,
        (record) => keep(shallowOf(record)),
      ))
    )
      cursor = undefined;
  } catch (error) {
    throw asCursorError(error, page);
  }
  return cursor === undefined ? { roots } : { roots, cursor };
}
