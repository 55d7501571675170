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

export function etagOf(revision: number): string {
  return `"${revision}"`;
}

/** GET with If-None-Match: the client's copy is current when one of its tags (or "*") matches. */
export function isNotModified(c: GatewayContext, revision: number): boolean {
  const tags = entityTags(c.req.header("If-None-Match"));
  return tags !== undefined && (tags.includes("*") || tags.includes(String(revision)));
}
