/**
 * Whether a request target's path has a dot segment: "." or "..", also percent-encoded ("%2e",
 * "%2E%2e") and after a backslash. @hono/node-server builds the request's URL with the WHATWG parser,
 * which resolves them (and reads "\" as "/" in http URLs) before any route sees the path: `DELETE
 * …/submodel-elements/..` deleted the whole submodel, and `GET …/submodel-elements/%2e%2e/%2e%2e/%2e%2e/reset`
 * reset the repository, past any proxy rule written for the path as sent (black-box finding).
 * No AAS path has such a segment (an idShort is a name, an identifier is base64url), so one is
 * refused as the malformed request it is, before routing.
 */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

export function hasDotSegment(target: string): boolean {
  // Every request passes here: most targets have no "." and no "%2e" at all, and end here.
  if (!target.includes(".") && !/%2e/i.test(target)) return false;
  const end = target.search(/[?#]/);
  const path = end < 0 ? target : target.slice(0, end);
  return path.split(/[/\\]/).some((segment) => DOT_SEGMENT.test(segment));
}
