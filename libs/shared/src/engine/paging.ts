import { echoed } from "../aas/index.ts";
import { CommandError, DEFAULT_PAGE_LIMIT, type Paged, type PageRequest } from "../contracts/index.ts";
import type { IdentifiableKind, Repository, RepositoryPage } from "./ports/index.ts";

export const MAX_PAGE_LIMIT = 10_000;

export function pageLimit(page: PageRequest | undefined): number {
  const limit = page?.limit ?? DEFAULT_PAGE_LIMIT;
  if (!Number.isInteger(limit) || limit < 1)
    throw new CommandError("bad-request", `limit must be an integer ≥ 1, got '${echoed(String(limit))}'`);
  return Math.min(limit, MAX_PAGE_LIMIT);
}

export function pageCursor(page: PageRequest | undefined): string | undefined {
  if (page?.cursor === undefined) return undefined;
  if (page.cursor === "")
    throw new CommandError("bad-request", "cursor must not be empty; omit it to start from the beginning");
  return page.cursor;
}

/**
 * Keyset paging with a filter: read pages of exactly the number of items still missing, so every
 * item read is either returned or skipped and the repository's cursor always points right after the
 * last item considered. Inserts and deletes between pages never repeat or skip an item.
 *
 * `terms` (index-terms.ts): index terms every item `keep` accepts carries. Given, the candidates
 * come from the repository's index (the rarest term's identifiables, docs/adr/0035) instead of every
 * identifiable of the kind; `keep` still decides, so the answer is the same, only cheaper. The
 * cursors are the same ordinals either way.
 */
export async function listFiltered(
  repository: Repository,
  kind: IdentifiableKind,
  page: PageRequest | undefined,
  keep: (item: Record<string, unknown>) => boolean,
  project: (item: Record<string, unknown>) => unknown = (item) => item,
  exactEnd = false,
  terms: readonly string[] = [],
): Promise<Paged<unknown>> {
  const limit = pageLimit(page);
  let cursor = pageCursor(page);
  const items: unknown[] = [];
  const read = (p: { cursor?: string; limit: number }) =>
    terms.length > 0 ? repository.listIdentifiablesByTerms(kind, terms, p) : repository.listIdentifiables(kind, p);
  try {
    do {
      const batch = await read({ cursor, limit: limit - items.length });
      for (const stored of batch.items) {
        const item = JSON.parse(stored.json) as Record<string, unknown>;
        if (keep(item)) items.push(project(item));
      }
      cursor = batch.cursor;
    } while (items.length < limit && cursor !== undefined);
    if (
      exactEnd &&
      cursor !== undefined &&
      !(await keptItemFollows(read, cursor, (stored) => keep(JSON.parse(stored.json))))
    )
      cursor = undefined;
  } catch (error) {
    throw asCursorError(error, page);
  }
  return cursor === undefined ? { items } : { items, cursor };
}

/**
 * Whether anything `keep` accepts comes after `cursor`. A full page whose remaining items are all
 * filtered out (access rules hiding them) must carry no cursor: the next page would be empty.
 * Reads ahead in growing batches, so a list where the next item is kept pays one read of one item.
 */
export async function keptItemFollows<T>(
  read: (page: { cursor?: string; limit: number }) => Promise<RepositoryPage<T>>,
  cursor: string,
  keep: (item: T) => boolean,
): Promise<boolean> {
  let next: string | undefined = cursor;
  for (let batchSize = 1; next !== undefined; batchSize = Math.min(batchSize * 8, MAX_PAGE_LIMIT)) {
    const batch = await read({ cursor: next, limit: batchSize });
    if (batch.items.some(keep)) return true;
    next = batch.cursor;
  }
  return false;
}

/** A repository that cannot decode a client's cursor throws; that is the client's error (400). */
export function asCursorError(error: unknown, page: PageRequest | undefined): unknown {
  const unavailable = error instanceof Error && error.name === "RepositoryUnavailableError";
  if (page?.cursor !== undefined && !unavailable && !(error instanceof CommandError)) {
    return new CommandError("bad-request", `Invalid cursor '${echoed(page.cursor)}'`);
  }
  return error;
}
