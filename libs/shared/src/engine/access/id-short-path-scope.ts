import { createHash } from "node:crypto";

/**
 * idShortPath prefixes of element-scoped rights, compared on path segments: `A.B` covers `A.B`,
 * `A.B.C` and `A.B[0]`, not `A.BC`. IdShorts never contain `.` or `[`, so a prefix followed by one
 * of them (or by nothing) is a segment boundary and a string comparison is exact.
 */
export function pathCovers(prefix: string, path: string): boolean {
  if (!path.startsWith(prefix)) return false;
  if (path.length === prefix.length) return true;
  const next = path.charCodeAt(prefix.length);
  return next === 46 /* . */ || next === 91 /* [ */;
}

/** Which elements of one submodel a right reaches. */
export interface ElementScope {
  /** The whole submodel: every element, and the submodel itself (its own attributes). */
  readonly whole: boolean;
  /** The right holds on this element and everything below it. */
  covers(path: string): boolean;
  /**
   * A granted prefix lies below `path`, reached through a child named `.idShort` (`via` "."), a list
   * item `[n]` ("["), or either (no `via`). Paths alone: whether the element at `path` is shown on
   * the way also depends on its kind (element-on-the-way.ts asks it): a Property at `C` holds no
   * `C.Ok`, and a grant on `C.Ok` must not show it (a black-box finding: it was answered whole).
   */
  leadsBelow(path: string, via?: ChildSeparator): boolean;
  /**
   * A partial scope's name for what it shows: equal for equal sets of prefixes, different
   * otherwise. Readers with different partial scopes get different representations of one
   * revision, so their ETags carry it (docs/adr/0058); a whole scope has none.
   */
  readonly view?: string;
}

/** How a child's path continues its parent's: `.idShort` (collection, Entity, annotations) or `[n]` (list). */
export type ChildSeparator = "." | "[";

export const WHOLE_SUBMODEL: ElementScope = Object.freeze({ whole: true, covers: () => true, leadsBelow: () => true });

export function prefixScope(prefixes: readonly string[]): ElementScope {
  return {
    whole: false,
    view: viewOf(prefixes),
    covers: (path) => prefixes.some((prefix) => pathCovers(prefix, path)),
    leadsBelow: (path, via) =>
      prefixes.some(
        (prefix) =>
          prefix.length > path.length && pathCovers(path, prefix) && (via === undefined || prefix[path.length] === via),
      ),
  };
}

/**
 * 16 base64url characters of a digest of the distinct prefixes (sorted: the order of the rules
 * does not change what is shown). IdShorts never contain a newline, so the joined text is exact.
 * Scopes are made once per principal and submodel (access-policy.ts memos), not per request.
 */
function viewOf(prefixes: readonly string[]): string {
  const distinct = [...new Set(prefixes)].sort();
  return createHash("sha256").update(distinct.join("\n")).digest("base64url").slice(0, VIEW_LENGTH);
}

/** The length of a view; an entity tag `<revision>-<view>` is recognised by it (preconditions.ts). */
export const VIEW_LENGTH = 16;
