import type { Preconditions } from "@twinport/shared";
import type { GatewayContext } from "./gateway-env.ts";

/**
 * If-Match / If-None-Match as the engine wants them: bare revisions (or "*"). Our ETags are strong
 * and quoted; a weak `W/` prefix is tolerated so intermediaries that weaken tags do not break writes.
 * The comparison itself happens in the engine, inside the commit.
 */
export function readPreconditions(c: GatewayContext): Preconditions | undefined {
  const ifMatch = entityTags(c.req.header("If-Match"));
  const ifNoneMatch = entityTags(c.req.header("If-None-Match"));
  if (ifMatch === undefined && ifNoneMatch === undefined) return undefined;
  const preconditions: Preconditions = {};
  if (ifMatch !== undefined) preconditions.ifMatch = ifMatch;
  if (ifNoneMatch !== undefined) preconditions.ifNoneMatch = ifNoneMatch;
  return preconditions;
}

export function entityTags(header: string | undefined): string[] | undefined {
  if (header === undefined) return undefined;
  const tags = header
    .split(",")
    .map((tag) =>
      tag
        .trim()
        .replace(/^W\//, "")
        .replace(/^"(.*)"$/, "$1"),
    )
    .filter((tag) => tag !== "");
  return tags.length > 0 ? tags : undefined;
}

/**
 * A revision's ETag; a partial reader's answer (a reply with a view) is one of several
 * representations of that revision and gets a tag of its own, `"<revision>-<view>"`, so that no
 * If-None-Match validates another principal's view (docs/adr/0058).
 */
export function etagOf(revision: number, view?: string): string {
  return view === undefined ? `"${revision}"` : `"${revision}-${view}"`;
}

/** GET with If-None-Match: the client's copy is current when one of its tags (or "*") is this ETag. */
export function isNotModified(c: GatewayContext, etag: string): boolean {
  const tags = entityTags(c.req.header("If-None-Match"));
  return tags !== undefined && (tags.includes("*") || tags.includes(etag.slice(1, -1)));
}
