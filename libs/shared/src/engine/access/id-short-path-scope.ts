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
   * The element is shown in a read: it is covered, or it lies on the way to a covered element (an
   * ancestor of a granted prefix, shown with only the covered parts below it).
   */
  shows(path: string): boolean;
  /**
   * A partial scope's name for what it shows: equal for equal sets of prefixes, different
   * otherwise. Readers with different partial scopes get different representations of one
   * revision, so their ETags carry it (docs/adr/0058); a whole scope has none.
   */
  readonly view?: string;
}

export const WHOLE_SUBMODEL: ElementScope = Object.freeze({ whole: true, covers: () => true, shows: () => true });

export function prefixScope(prefixes: readonly string[]): ElementScope {
  return {
    whole: false,
    view: viewOf(prefixes),
    covers: (path) => prefixes.some((prefix) => pathCovers(prefix, path)),
    shows: (path) => prefixes.some((prefix) => pathCovers(prefix, path) || pathCovers(path, prefix)),
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
