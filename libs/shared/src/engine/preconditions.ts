import { CommandError, type Preconditions } from "../contracts/index.ts";
import { VIEW_LENGTH } from "./access/id-short-path-scope.ts";

/**
 * HTTP conditional requests (RFC 9110 §13) evaluated against the revision the engine just read.
 * The commit then re-checks that revision (compare-and-set), so check and write are one atomic step.
 * `current` is undefined when the target does not exist. Every caller answers 404 then (no write
 * here creates what it targets), and RFC 9110 §13.2.1 has a server ignore the preconditions when
 * the answer without them would be neither 2xx nor 412: the 404 comes first, a 412 would tell the
 * client its tag was stale where the resource is gone.
 */
export function checkPreconditions(preconditions: Preconditions | undefined, current: number | undefined): void {
  if (!preconditions || current === undefined) return;
  // A placeholder revision (a write planned on top of an uncommitted one of its group commit) is
  // no ETag any client has seen: it matches only "*".
  if (current !== undefined && current < 0) {
    const tags = preconditions.ifMatch ?? [];
    if (tags.length > 0 && !tags.includes("*"))
      throw new CommandError("precondition-failed", "If-Match does not match the current revision");
    if ((preconditions.ifNoneMatch ?? []).includes("*"))
      throw new CommandError("precondition-failed", "If-None-Match matches the current revision");
    return;
  }
  const { ifMatch, ifNoneMatch } = preconditions;
  if (ifMatch && ifMatch.length > 0) {
    const matches = ifMatch.some((tag) => tag === "*" || revisionOfTag(tag) === String(current));
    if (!matches) throw new CommandError("precondition-failed", "If-Match does not match the current revision");
  }
  if (ifNoneMatch && ifNoneMatch.length > 0) {
    const matches = ifNoneMatch.some((tag) => tag === "*" || revisionOfTag(tag) === String(current));
    if (matches) throw new CommandError("precondition-failed", "If-None-Match matches the current revision");
  }
}

/**
 * Preconditions of a POST to a collection that has no entity tag of its own: the shells, submodels
 * and concept descriptions of the repository (RFC 9110 §13.1 evaluates them against the target
 * resource, the collection). It always exists, so `If-Match: *` holds and `If-None-Match: *` does
 * not (412: a client asking to create only where nothing is would otherwise get its write); no tag
 * can name it, so any listed If-Match tag fails and any listed If-None-Match tag holds.
 */
export function checkCollectionPreconditions(preconditions: Preconditions | undefined): void {
  if (!preconditions) return;
  const { ifMatch, ifNoneMatch } = preconditions;
  if (ifMatch && ifMatch.length > 0 && !ifMatch.includes("*"))
    throw new CommandError("precondition-failed", "If-Match names an entity tag; the collection has none");
  if (ifNoneMatch?.includes("*"))
    throw new CommandError("precondition-failed", "If-None-Match is *; the collection exists");
}

const VIEW_TAG = new RegExp(`^(\\d+)-[A-Za-z0-9_-]{${VIEW_LENGTH}}$`);

/**
 * The revision an entity tag names. A partial reader's tag is `<revision>-<view>` (docs/adr/0058):
 * a write's precondition is about the stored resource, which every view of a revision was made
 * from, so the view part does not take part (a tag of another view names the same state). Any
 * other tag is compared whole: `5-stale` is no view of revision 5.
 */
function revisionOfTag(tag: string): string {
  if (tag.indexOf("-") < 0) return tag;
  return VIEW_TAG.exec(tag)?.[1] ?? tag;
}
