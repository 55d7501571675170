import type { Preconditions } from "@twinport/shared";
import { refusedByAccept } from "./acceptable-representation.ts";
import { ApiError } from "./api-error.ts";
import { entityTags } from "./entity-tags.ts";
import type { GatewayContext } from "./gateway-env.ts";

/**
 * If-Match / If-None-Match as the engine wants them: bare revisions (or "*"), each header with the
 * comparison RFC 9110 gives it (entity-tags.ts). The comparison itself happens in the engine, inside
 * the commit.
 */
export function readPreconditions(c: GatewayContext): Preconditions | undefined {
  const ifMatch = ifMatchTags(c.req.header("If-Match"));
  const ifNoneMatch = ifNoneMatchTags(c.req.header("If-None-Match"));
  if (ifMatch === undefined && ifNoneMatch === undefined) return undefined;
  const preconditions: Preconditions = {};
  if (ifMatch !== undefined) preconditions.ifMatch = ifMatch;
  if (ifNoneMatch !== undefined) preconditions.ifNoneMatch = ifNoneMatch;
  return preconditions;
}

/** If-Match: the strong comparison, a weak tag never matches. */
export function ifMatchTags(header: string | undefined): string[] | undefined {
  return header === undefined ? undefined : entityTags(header, "strong");
}

/** If-None-Match: the weak comparison, `W/"5"` matches revision 5. */
export function ifNoneMatchTags(header: string | undefined): string[] | undefined {
  return header === undefined ? undefined : entityTags(header, "weak");
}

/**
 * A revision's ETag. An element addressed through a list index names the element too,
 * `"<revision>.<item>"`: after an item before it is deleted the path names another element, maybe of
 * the same revision (engine preconditions.ts itemOf). A partial reader's answer (a reply with a
 * view) is one of several representations of that revision and gets a tag of its own, `-<view>`
 * at the end, so that no If-None-Match validates another principal's view (docs/adr/0058).
 */
export function etagOf(revision: number, view?: string, item?: string): string {
  const named = item === undefined ? `${revision}` : `${revision}.${item}`;
  return view === undefined ? `"${named}"` : `"${named}-${view}"`;
}

/**
 * What a GET's preconditions answer instead of the representation whose ETag is `etag` (RFC 9110
 * §13.2.2, If-Match first): a 412 thrown when If-Match fails, a 304 when If-None-Match names the
 * client's copy, undefined to answer in full (also when Accept refuses `contentType`: the answer is
 * then the 406). The engine only read, so there is nothing to make
 * atomic: the tag compared is the one the answer carries.
 */
export function conditionalAnswer(
  c: GatewayContext,
  etag: string | undefined,
  contentType: string,
): Response | undefined {
  // An answer Accept refuses is a 406 whatever the preconditions say (acceptable-representation.ts).
  if (refusedByAccept(c, contentType)) return undefined;
  if (!ifMatchHolds(c, etag))
    throw ApiError.of("precondition-failed", "If-Match does not match the current entity tag");
  if (etag !== undefined && isNotModified(c, etag)) return c.body(null, 304, { ETag: etag });
  return undefined;
}

/**
 * GET with If-Match (RFC 9110 §13.1.1): true when the field is `*` or one of its tags is this ETag,
 * compared strongly and whole. A GET answers one representation, so a partial reader's view tag
 * (ADR 0058) matches only its own view here, as on If-None-Match; writes compare the revision a
 * tag names instead (engine/preconditions.ts). An answer without an ETag (`etag` undefined) exists
 * but no tag names it: only `*` holds.
 */
function ifMatchHolds(c: GatewayContext, etag: string | undefined): boolean {
  const tags = ifMatchTags(c.req.header("If-Match"));
  if (tags === undefined || tags.includes("*")) return true;
  return etag !== undefined && tags.includes(etag.slice(1, -1));
}

/** GET with If-None-Match: the client's copy is current when one of its tags (or "*") is this ETag. */
export function isNotModified(c: GatewayContext, etag: string): boolean {
  const tags = ifNoneMatchTags(c.req.header("If-None-Match"));
  return tags !== undefined && (tags.includes("*") || tags.includes(etag.slice(1, -1)));
}
