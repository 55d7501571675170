/**
 * The entity tags of an If-Match or If-None-Match field (RFC 9110 §13.1.1, §13.1.2: `*` or a
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
 * - A field that is neither `*` nor a list of entity tags is invalid, and as a whole matches
 *   nothing: an unquoted member (`If-Match: 81`), an unclosed quote, a character etagc does not
 *   allow, anything between a tag and the next comma, `*` inside a list (`W/"1", *` let a write
 *   through). An invalid condition cannot be found true (§13.1.1: the tag is quoted, §8.8.3), so
 *   If-Match answers 412 and nothing is written; taking `81` for `"81"` wrote on a tag no server
 *   gave. For If-None-Match the same list names no current tag: never a 304 (nor a 412) for it.
 * - An If-Match field with no tag in it (empty, `,`) is a list that matches nothing: 412. Taking it
 *   as no condition made the write unconditional, so a script sending `If-Match: $ETAG` with the
 *   variable empty lost its protection against lost updates. (An empty If-None-Match matches
 *   nothing either, which is what no condition does.)
 */
export function entityTags(header: string, comparison: "strong" | "weak"): string[] | undefined {
  const field = header.trim();
  if (field === "*") return ["*"];
  const tags: string[] = [];
  let at = 0;
  while (at < field.length) {
    const char = field[at]!;
    if (char === "," || char === " " || char === "\t") {
      at += 1;
      continue;
    }
    const weak = field.startsWith('W/"', at);
    if (!weak && char !== '"') return [NO_TAG];
    const open = weak ? at + 2 : at;
    const close = field.indexOf('"', open + 1);
    if (close === -1) return [NO_TAG];
    const opaque = field.slice(open + 1, close);
    if (!ETAGC.test(opaque)) return [NO_TAG];
    const matchable = opaque !== "*" && !(weak && comparison === "strong");
    tags.push(matchable ? opaque : field.slice(at, close + 1));
    at = close + 1;
    while (field[at] === " " || field[at] === "\t") at += 1;
    if (at < field.length && field[at] !== ",") return [NO_TAG];
  }
  if (tags.length > 0) return tags;
  return comparison === "strong" ? [NO_TAG] : undefined;
}

/** A member no revision can match (the engine compares members with revisions and with "*"). */
const NO_TAG = '""';
/** etagc (RFC 9110 §8.8.3): visible ASCII but the quote, and obs-text. */
const ETAGC = /^[\x21\x23-\x7e\x80-\xff]*$/;
