/**
 * The entity tags of an If-Match or If-None-Match field (RFC 9110 §13.1.1, §13.1.2: `"*"` or a
 * list of `[W/]"opaque"`), as the engine compares them with a revision: `*` for the wildcard, the
 * opaque part for a tag that can match, and the member as it was written for one that cannot. The
 * engine compares a tag with the revision (or the revision a view tag names, ADR 0058); a written
 * member keeps its quotes, so it never names one.
 *
 * - If-Match uses the strong comparison (§8.8.3.2): a weak tag never matches, even one whose opaque
 *   part is the current revision. Taking `W/"5"` for `"5"` would let a write through on a tag that
 *   only promises an equivalent representation, not this one.
 * - If-None-Match uses the weak comparison: `W/"5"` matches revision 5 like `"5"` does.
 * - `"*"` in quotes is a tag whose opaque part is `*`, not the wildcard.
 * - A comma inside quotes belongs to the tag (etagc allows it), so the list is scanned, not split.
 * - An unquoted member (`5`) is taken as the bare revision, as before: lenient towards clients that
 *   drop the quotes; it can only match the revision it names.
 * - `*` is the wildcard only as the whole field; inside a list it is no valid member and matches
 *   nothing (`W/"1", *` let a write through).
 * - An If-Match field with no tag in it (empty, `,`) is a list that matches nothing: 412. Taking it
 *   as no condition made the write unconditional, so a script sending `If-Match: $ETAG` with the
 *   variable empty lost its protection against lost updates. (An empty If-None-Match matches
 *   nothing either, which is what no condition does.)
 */
export function entityTags(header: string, comparison: "strong" | "weak"): string[] | undefined {
  const tags: string[] = [];
  let at = 0;
  while (at < header.length) {
    const char = header[at]!;
    if (char === "," || char === " " || char === "\t") {
      at += 1;
      continue;
    }
    const weak = header.startsWith('W/"', at);
    if (weak || char === '"') {
      const open = weak ? at + 2 : at;
      const close = header.indexOf('"', open + 1);
      const end = close === -1 ? header.length : close + 1;
      const written = header.slice(at, end);
      const opaque = header.slice(open + 1, close === -1 ? header.length : close);
      // An unclosed quote is no entity tag: it stays as written and matches nothing.
      const matchable = close !== -1 && opaque !== "*" && !(weak && comparison === "strong");
      tags.push(matchable ? opaque : written);
      at = end;
      continue;
    }
    const comma = header.indexOf(",", at);
    const member = header.slice(at, comma === -1 ? header.length : comma).trim();
    if (member !== "") tags.push(member === "*" && header.trim() !== "*" ? NO_TAG : member);
    at = comma === -1 ? header.length : comma + 1;
  }
  if (tags.length > 0) return tags;
  return comparison === "strong" ? [NO_TAG] : undefined;
}

/** A member no revision can match (the engine compares members with revisions and with "*"). */
const NO_TAG = '""';
