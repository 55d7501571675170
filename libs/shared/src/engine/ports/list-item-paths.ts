/**
 * Internal element paths of a Repository (docs/adr/0020). The port speaks external idShortPaths
 * (`L[3].x`); a store keeps a list item under a position token that never changes while the item
 * lives (`L[#000000000000002a].x`), so deleting or inserting one item moves no other record. An
 * item's external index is its rank among its list's children.
 *
 * Stores written before ADR 0020 keep items under their index (`L[3]`): every `[...]` segment of
 * an internal path is read the same way (by rank), so those records still resolve and answer with
 * their current index.
 */

/** The internal last segment of a list item whose orderKey is `orderKey`. `#` never occurs in an idShort. */
export function listItemToken(orderKey: string): string {
  return `[#${orderKey}]`;
}

/** Whether the child `childInternal` of `parentInternal` is a list item (its segment is `[...]`). */
export function isListItemOf(parentInternal: string, childInternal: string): boolean {
  return childInternal.charCodeAt(parentInternal.length) === 0x5b; // "["
}

/**
 * The external path of a child found while walking internal records in order: an idShort child
 * keeps its segment, a list item's segment becomes its rank.
 */
export function externalChildPath(
  parentExternal: string,
  parentInternal: string,
  childInternal: string,
  rank: number,
): string {
  if (isListItemOf(parentInternal, childInternal)) return `${parentExternal}[${rank}]`;
  return parentExternal + childInternal.slice(parentInternal.length);
}

/**
 * Resolve an external path to an internal one, segment by segment: text up to each `[i]` is
 * copied, and `[i]` becomes the i-th child of what was resolved so far (`nthChild` answers its
 * internal path, or undefined when the list has fewer items; undefined too when what was resolved
 * is no list). A path without `[` is its own internal path, at no cost.
 */
export function resolvePath(
  path: string,
  nthChild: (parentInternal: string, index: number) => string | undefined,
): string | undefined {
  let open = path.indexOf("[");
  if (open < 0) return path;
  let internal = "";
  let at = 0;
  while (open >= 0) {
    internal += path.slice(at, open);
    const close = path.indexOf("]", open + 1);
    if (close < 0) return undefined;
    const index = Number(path.slice(open + 1, close));
    if (!Number.isSafeInteger(index) || index < 0) return undefined;
    const child = nthChild(internal, index);
    // Only a list's items are addressed by index: `C[0]` of a collection (entity, annotated
    // relationship) names nothing, rather than whichever idShort child comes first.
    if (child === undefined || !isListItemOf(internal, child)) return undefined;
    internal = child;
    at = close + 1;
    open = path.indexOf("[", at);
  }
  return internal + path.slice(at);
}
