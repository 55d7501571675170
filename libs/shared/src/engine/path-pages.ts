import {
  childrenKey,
  decodeBase64Url,
  type ElementJson,
  echoed,
  encodeBase64Url,
  parentPathOf,
  rootIdShortOf,
} from "../aas/index.ts";
import { CommandError, type Level, type Paged, type PageRequest } from "../contracts/index.ts";
import { recordShown } from "./access/element-on-the-way.ts";
import type { ElementScope } from "./access/id-short-path-scope.ts";
import { asCursorError, MAX_PAGE_LIMIT, pageCursor, pageLimit } from "./paging.ts";
import type { Repository, StoredElement } from "./ports/index.ts";

/**
 * Paging of `$path` lists, where an item is one idShortPath, so a top-level element contributes
 * itself and (level deep) every path below it: a page can end in the middle of an element's
 * subtree. The cursor is keyset-like: the repository cursor BEFORE the top-level element the page
 * stopped in, plus the last path returned. Resuming re-reads that element's subtree and continues
 * after that path; elements inserted or deleted elsewhere between pages never shift the result.
 * (If the last returned path itself was deleted, the page resumes after its nearest surviving
 * ancestor: a few paths may come twice, none is skipped.)
 */

interface PathCursor {
  /** Repository cursor before the top-level element holding `p` (absent: from the first one). */
  r?: string;
  /** The last idShortPath returned. */
  p: string;
}

function encodeCursor(cursor: PathCursor): string {
  return encodeBase64Url(JSON.stringify(cursor));
}

function decodeCursor(text: string | undefined): Partial<PathCursor> {
  if (text === undefined) return {};
  try {
    const cursor = JSON.parse(decodeBase64Url(text)) as PathCursor;
    if (
      typeof cursor === "object" &&
      cursor !== null &&
      typeof cursor.p === "string" &&
      (cursor.r === undefined || typeof cursor.r === "string")
    )
      return cursor;
  } catch {
    // fall through: not one of our cursors
  }
  throw new CommandError("bad-request", `Invalid cursor '${echoed(text)}'`);
}

/** The records of one top-level element's subtree (itself alone at level core): their paths, and kinds for the rules. */
async function recordsOf(
  repository: Repository,
  submodelId: string,
  root: StoredElement,
  level: Level | undefined,
): Promise<StoredElement[]> {
  if (level === "core" || childrenKey(JSON.parse(root.json) as ElementJson) === undefined) return [root];
  return await repository.getSubtree(submodelId, root.path);
}

/** The paths of one top-level element's subtree that come after `last` (all when `last` is elsewhere). */
function pathsAfter(paths: string[], last: string | undefined): string[] {
  if (last === undefined || paths.length === 0 || rootIdShortOf(last) !== rootIdShortOf(paths[0])) return paths;
  for (let probe = last; ; probe = parentPathOf(probe)) {
    const at = paths.indexOf(probe);
    if (at >= 0) return paths.slice(at + 1);
    if (parentPathOf(probe) === "") return paths;
  }
}

/** GET …/submodel-elements/$path: full idShortPaths of the top-level elements (core) or of all (deep). */
export async function pageElementPaths(
  repository: Repository,
  submodelId: string,
  page: PageRequest | undefined,
  level: Level | undefined,
  scope?: ElementScope,
): Promise<Paged<string>> {
  const limit = pageLimit(page);
  const start = decodeCursor(pageCursor(page));
  const items: string[] = [];
  let rootCursor = start.r;
  let last = start.p;
  // Where the next page resumes: after the last top-level element whose paths the caller was shown
  // (`from`, then `count` elements). Not simply before the element the page stops in: the one
  // before that may be hidden from the caller, and a repository cursor names its element (a
  // black-box finding: the cursor spelled a hidden element's idShort). Resuming from further back
  // re-reads only elements that show the caller nothing.
  let resume: { from: string | undefined; count: number } = { from: start.r, count: 0 };
  try {
    for (;;) {
      const batch = await repository.listChildren(submodelId, "", {
        cursor: rootCursor,
        limit: Math.min(limit - items.length + 1, MAX_PAGE_LIMIT),
      });
      for (let i = 0; i < batch.items.length; i++) {
        const all = await recordsOf(repository, submodelId, batch.items[i], level);
        // Paths the caller may not read are skipped like any filtered item: they never count. Left
        // out before the cursor's path is looked for, so that a made-up cursor naming a hidden path
        // resumes as one naming no path at all (a black-box finding: it told hidden names apart).
        const visible = (scope === undefined ? all : all.filter((record) => recordShown(scope, record))).map(
          (record) => record.path,
        );
        const shown = pathsAfter(visible, last);
        // The element the last page stopped in: the rest of it, once.
        if (last !== undefined && shown !== visible) last = undefined;
        for (const path of shown) {
          if (items.length === limit) {
            // Full: resume in this element next time, from the cursor of the last element shown before it.
            const before =
              resume.count === 0
                ? resume.from
                : (await repository.listChildren(submodelId, "", { cursor: resume.from, limit: resume.count })).cursor;
            return {
              items,
              cursor: encodeCursor({ ...(before === undefined ? {} : { r: before }), p: items[items.length - 1] }),
            };
          }
          items.push(path);
        }
        // Its idShort is in the paths the caller saw: a cursor after it tells nothing new.
        if (visible.length > 0) resume = { from: rootCursor, count: i + 1 };
      }
      if (batch.cursor === undefined) return { items };
      rootCursor = batch.cursor;
    }
  } catch (error) {
    throw asPathCursorError(error, page);
  }
}

/**
 * A cursor refused inside (the repository's, within ours) is named as the client sent it: the
 * message quoted the inner one, a value the client never wrote.
 */
function asPathCursorError(error: unknown, page: PageRequest | undefined): unknown {
  if (
    error instanceof CommandError &&
    error.code === "bad-request" &&
    page?.cursor !== undefined &&
    /cursor/i.test(error.message)
  )
    return new CommandError(
      "bad-request",
      `Invalid cursor '${echoed(page.cursor)}': not a cursor this list gave (it may be cut short, or another list's)`,
    );
  return asCursorError(error, page);
}

interface SubmodelPathCursor {
  /** Repository cursor before the submodel the page stopped in. */
  s?: string;
  /** Id of that submodel and the pageElementPaths cursor inside it. */
  i?: string;
  e?: string;
}

/**
 * GET /submodels/$path: the `$path` lists of the matching submodels one after the other, paged by
 * path. v3.0.1 types the items as plain idShortPaths (GetPathItemsResult), so the list does not say
 * which submodel a path belongs to; it is what the schema allows.
 */
export async function pageSubmodelPaths(
  repository: Repository,
  page: PageRequest | undefined,
  keep: (submodel: Record<string, unknown>) => boolean,
  level: Level | undefined,
  scopeOf?: (submodel: Record<string, unknown>) => ElementScope | undefined,
  /** Index terms every submodel `keep` accepts carries (see listFiltered). */
  terms: readonly string[] = [],
): Promise<Paged<string>> {
  const limit = pageLimit(page);
  const text = pageCursor(page);
  let start: SubmodelPathCursor = {};
  if (text !== undefined) {
    try {
      start = JSON.parse(decodeBase64Url(text)) as SubmodelPathCursor;
    } catch {
      throw new CommandError("bad-request", `Invalid cursor '${echoed(text)}'`);
    }
    if (typeof start !== "object" || start === null)
      throw new CommandError("bad-request", `Invalid cursor '${echoed(text)}'`);
  }
  const items: string[] = [];
  let submodelCursor = start.s;
  let elementCursor = start.e;
  try {
    for (;;) {
      const next = { cursor: submodelCursor, limit: 1 };
      const batch = await (terms.length > 0
        ? repository.listIdentifiablesByTerms("submodel", terms, next)
        : repository.listIdentifiables("submodel", next));
      const stored = batch.items[0];
      const meta = stored === undefined ? undefined : (JSON.parse(stored.json) as Record<string, unknown>);
      if (stored !== undefined && keep(meta!)) {
        const scope = scopeOf?.(meta!);
        const remaining = limit - items.length;
        // A full page still looks one path ahead, so the last page carries no cursor.
        // The element cursor belongs to one submodel: if that one was deleted meanwhile, start afresh.
        const inside = elementCursor !== undefined && start.i === stored.id ? { cursor: elementCursor } : {};
        const part = await pageElementPaths(
          repository,
          stored.id,
          { limit: Math.max(remaining, 1), ...inside },
          level,
          scope?.whole ? undefined : scope,
        );
        const resume = (e: string | undefined) =>
          encodeBase64Url(JSON.stringify({ s: submodelCursor, i: stored.id, e }));
        if (remaining === 0) {
          if (part.items.length > 0) return { items, cursor: resume(inside.cursor) };
        } else {
          items.push(...part.items);
          if (part.cursor !== undefined) return { items, cursor: resume(part.cursor) };
        }
      }
      elementCursor = undefined;
      if (batch.cursor === undefined) return { items };
      submodelCursor = batch.cursor;
    }
  } catch (error) {
    throw asPathCursorError(error, page);
  }
}
