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
}

export const WHOLE_SUBMODEL: ElementScope = Object.freeze({ whole: true, covers: () => true, shows: () => true });

export function prefixScope(prefixes: readonly string[]): ElementScope {
  return {
    whole: false,
    covers: (path) => prefixes.some((prefix) => pathCovers(prefix, path)),
    shows: (path) => prefixes.some((prefix) => pathCovers(prefix, path) || pathCovers(path, prefix)),
  };
}
