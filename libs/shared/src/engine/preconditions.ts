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
export function checkPreconditions(
  preconditions: Preconditions | undefined,
  current: number | undefined,
  /** The element's identity when it is addressed through a list index (itemOf): part of its ETag. */
  item?: string,
): void {
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
  const names = (tag: string) => tag === "*" || tagNames(tag, current, item);
  if (ifMatch && ifMatch.length > 0 && !ifMatch.some(names))
    throw new CommandError("precondition-failed", "If-Match does not match the current revision");
  if (ifNoneMatch && ifNoneMatch.length > 0 && ifNoneMatch.some(names))
    throw new CommandError("precondition-failed", "If-None-Match matches the current revision");
}

/**
 * The client's body applied to what the engine read, under RFC 9110 §13.2.1: preconditions are
 * evaluated before the request content is processed. A body that no longer fits the current state
 * (a list that gained an item, an Entity statement deleted since) was answered 400 about a state
 * the client never saw, where its stale If-Match should have told it to read again (a black-box
 * finding): a refused body now answers 412 when the preconditions fail too. `stateless`: the
 * refusal does not depend on the state (a kind that takes no such body): it stays first.
 */
export function appliedUnderPreconditions<T>(
  apply: () => T,
  preconditions: Preconditions | undefined,
  current: number | undefined,
  item?: string,
  stateless = false,
): T {
  try {
    return apply();
  } catch (error) {
    if (!stateless) checkPreconditions(preconditions, current, item);
    throw error;
  }
}

/**
 * The identity an element addressed by `path` puts into its ETag: for a path through a list index,
 * the orderKey of the element it names now (unique in the submodel, kept for the element's life,
 * docs/adr/0020). Items written by one commit share a revision, so after an item before them is
 * deleted, `L[1]` names another element with the tag of the one that was there: an If-Match read
 * before the shift then wrote or deleted the wrong item (black-box finding). Other paths always name
 * the same element while it lives (a new one at the path has a new revision): no identity needed.
 */
export function itemOf(path: string, record: { orderKey: string }): string | undefined {
  return path.includes("[") ? record.orderKey : undefined;
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

/**
 * An entity tag as the HTTP gateway makes it (its etagOf): `<revision>`, then `.<item>` for an
 * element addressed through a list index, then `-<view>` for a partial reader's answer.
 */
const TAG = new RegExp(`^(\\d+)(?:\\.([0-9a-f]{1,32}))?(?:-[A-Za-z0-9_-]{${VIEW_LENGTH}})?$`);

/**
 * Whether `tag` names revision `current` of the element `item` (undefined: not addressed through a
 * list index). A partial reader's view (docs/adr/0058) does not take part: a write's precondition
 * is about the stored resource, which every view of a revision was made from. The item does: a tag
 * of another element, or one without the item where the element has one, names something else.
 * Anything not of the tag's form is compared whole: `5-stale` is no tag of revision 5.
 */
function tagNames(tag: string, current: number, item: string | undefined): boolean {
  const parsed = TAG.exec(tag);
  if (parsed === null) return tag === String(current);
  return parsed[1] === String(current) && parsed[2] === item;
}
