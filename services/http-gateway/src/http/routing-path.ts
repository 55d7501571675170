import { getPath } from "hono/utils/url";
import { API_PREFIX } from "./api-routes.ts";

/**
 * The path Hono routes on. Two spellings that real clients use are read as the path they mean:
 *
 * - "%24" for "$" (some clients escape it in "/$value", "/$metadata"): the AAS paths mean the
 *   literal character.
 * - One trailing slash after an API path ("/shells/{id}/", "…/submodel-elements/"): clients derive
 *   URLs by appending "/" and other AAS servers answer them as the same resource. Only one slash is
 *   removed, so "…//" (an empty segment) still names no resource, and "/api/v3.0/" itself stays
 *   what "/api/v3.0" is: no resource (400). Paths outside the API prefix (health, metrics) are
 *   left exactly as sent: they are ours, not the AAS API's, and no client derives them.
 *
 * Only the path changes: the query string is read from the request URL and is untouched.
 */
export function routingPath(request: Request): string {
  const path = getPath(request).replace(/%24/gi, "$");
  const inApi = path.startsWith(`${API_PREFIX}/`) && path.length > API_PREFIX.length + 1;
  return inApi && path.endsWith("/") ? path.slice(0, -1) : path;
}
