import type { MiddlewareHandler } from "hono";
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
  return withoutTrailingSlash(path);
}

function withoutTrailingSlash(path: string): string {
  const inApi = path.startsWith(`${API_PREFIX}/`) && path.length > API_PREFIX.length + 1;
  return inApi && path.endsWith("/") ? path.slice(0, -1) : path;
}

/**
 * routingPath for an endpoint with FA³ST's `pathPrefix`: a path under the prefix is routed as the
 * same path under /api/v3.0, which stays served too. A Location names the resource under the
 * prefix the client used (clientPrefix below). A prefix of "" serves the API at the root; a path
 * that is already under /api/v3.0 is taken as it is.
 */
export function routingPathWithPrefix(pathPrefix: string | undefined): (request: Request) => string {
  if (pathPrefix === undefined || pathPrefix === API_PREFIX) return routingPath;
  return (request) => {
    const path = getPath(request).replace(/%24/gi, "$");
    if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) return withoutTrailingSlash(path);
    // The web console keeps its own path even with the API at the root (pathPrefix ""): no AAS API
    // path begins with /console, and the console calls the API under /api/v3.0, served either way.
    if (path === "/console" || path.startsWith("/console/")) return path;
    // "/" stays the console's way in (its redirect), which the API root would otherwise shadow.
    if (path === "/" && pathPrefix === "") return path;
    if (path === pathPrefix) return API_PREFIX;
    if (path.startsWith(`${pathPrefix}/`)) return withoutTrailingSlash(`${API_PREFIX}${path.slice(pathPrefix.length)}`);
    return path;
  };
}

/**
 * For an endpoint with a pathPrefix of its own: marks a request that came under it, so that a
 * Location names the resource there (AAS API digest §g: the mount prefix the client used). A
 * proxy may forward only the prefix its clients use. Endpoints without one do not run this.
 */
export function clientPrefix(pathPrefix: string): MiddlewareHandler {
  return async (c, next) => {
    const path = getPath(c.req.raw);
    if (
      !(path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) &&
      (path === pathPrefix || path.startsWith(`${pathPrefix}/`))
    )
      c.set("clientPrefix", pathPrefix);
    await next();
  };
}
