import type { MiddlewareHandler } from "hono";
import { getPath } from "hono/utils/url";
import type { HttpEndpointSettings } from "../http-endpoint-settings.ts";
import { ApiError } from "./api-error.ts";
import { corsOriginsOf } from "./cors-policy.ts";

/** Methods a browser may send to another site without asking first and that change nothing here. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Refuses a state-changing request that a browser sends on behalf of another site (cross-site
 * request forgery). A page on any site can make its visitor's browser send a GET or a form POST
 * (multipart or url-encoded) here without a CORS preflight, and the browser attaches what it holds
 * for this server: a client certificate (mutual TLS), or simply its place inside the plant network
 * in front of an open Twinport (the spec's default: no security section). `GET /reset` (spec §4.2
 * makes reset a GET) and a multipart `POST /import` or `/packages` would then wipe or replace the
 * twin from a web page. A browser names where a request comes from (`Sec-Fetch-Site`, and `Origin`
 * on every POST); other clients send neither and are not affected.
 *
 * Refused, with 403: a request whose method is not GET, HEAD or OPTIONS, or a GET of `/reset`,
 * that a browser marks `cross-site` or `same-site` (another origin), or, from a browser too old for
 * `Sec-Fetch-Site`, whose `Origin` names another host than `Host`. Allowed anyway: an origin that
 * the endpoint's CORS settings let in (`corsEnabled` with that origin or `*` in
 * `corsAllowedOrigin`): the operator has said that site's pages may use the API.
 *
 * PUT, PATCH and DELETE from another origin always need a preflight, which only CORS answers; the
 * check covers them all the same, so the rule does not depend on what browsers preflight.
 */
export function crossSiteRequestGuard(settings: HttpEndpointSettings): MiddlewareHandler {
  const allowed = allowedOrigins(settings);
  return async (c, next) => {
    const method = c.req.method;
    if (SAFE_METHODS.has(method) && !(method === "GET" && isResetPath(getPath(c.req.raw)))) return next();
    const site = c.req.header("Sec-Fetch-Site");
    const origin = c.req.header("Origin");
    if (isCrossSite(site, origin, c.req.header("Host")) && !allowed(origin)) {
      throw ApiError.of(
        "forbidden",
        `A ${method} from another site's page (Origin ${origin ?? "not sent"}, Sec-Fetch-Site ${site ?? "not sent"}) is refused: it could change the model without the user knowing. To let a web application on that origin use the API, enable CORS for it (corsEnabled, corsAllowedOrigin).`,
      );
    }
    return next();
  };
}

function isCrossSite(site: string | undefined, origin: string | undefined, host: string | undefined): boolean {
  // "none" is the user's own doing (address bar, bookmark); "same-origin" is this server's page.
  if (site !== undefined) return site !== "same-origin" && site !== "none";
  if (origin === undefined) return false;
  // An opaque origin ("null": sandboxed frames, file: pages) is never this server's page.
  if (!URL.canParse(origin)) return true;
  return new URL(origin).host.toLowerCase() !== (host ?? "").trim().toLowerCase();
}

function allowedOrigins(settings: HttpEndpointSettings): (origin: string | undefined) => boolean {
  if (!settings.corsEnabled) return () => false;
  const origins = corsOriginsOf(settings);
  if (origins.includes("*")) return () => true;
  return (origin) => origin !== undefined && origins.includes(origin);
}

/** `/reset` under the API prefix or FA³ST's pathPrefix, decoded as the router reads it. */
function isResetPath(path: string): boolean {
  return /\/reset\/?$/.test(path);
}
