import type { Context, MiddlewareHandler } from "hono";
import { isAcceptable, namesMediaType, notAcceptable } from "./content-negotiation.ts";
import { errorResponse } from "./error-response.ts";
import { knownContentType } from "./response-content-type.ts";

/**
 * Accept on reads: a GET or HEAD whose successful response has a type the request's
 * Accept excludes is answered 406 instead, with the AAS Result body. Every read route has one
 * representation (JSON, a file's own type, a package) except /serialization, which picks among
 * several itself and so always passes here.
 *
 * Not applied to writes: their response reports a change that has already been committed, and
 * a 406 would tell the client it failed; RFC 9110 §12.5.1 lets a server disregard Accept there.
 * Error responses are not negotiated either: they are always the AAS Result in JSON (§15.5.7
 * allows a 406's own body to be in any format).
 *
 * Cheap on the hot path (ADR 0026): a request without Accept accepts anything, so it is not
 * wrapped at all; and the type of a response the gateway built itself is known without reading
 * `c.res.headers`, which would turn @hono/node-server's plain header object into a web Headers.
 */
const OCTET_STREAM = "application/octet-stream";

/**
 * Whether this middleware will answer 406 for a successful GET of `contentType`: the preconditions
 * are not evaluated then (RFC 9110 §13.2.1: the answer without them would be no 2xx), so a client
 * that cannot take the representation is not told that its copy is current (304).
 */
export function refusedByAccept(c: Context, contentType: string): boolean {
  const accept = c.req.header("Accept");
  if (accept === undefined || accept.trim() === "" || isAcceptable(accept, contentType)) return false;
  return !(c.get("fileDownload") && namesMediaType(accept, OCTET_STREAM));
}

export function acceptableRepresentation(): MiddlewareHandler {
  return async (c, next) => {
    const accept = c.req.header("Accept");
    if (accept === undefined || accept.trim() === "" || (c.req.method !== "GET" && c.req.method !== "HEAD"))
      return next();
    await next();
    if (c.res.status < 200 || c.res.status >= 300) return;
    const contentType = knownContentType(c.res) ?? c.res.headers.get("content-type");
    if (contentType === null || isAcceptable(accept, contentType)) return;
    // Named, not through a wildcard: `text/plain;q=0, */*` still refuses a text file.
    if (c.get("fileDownload") && namesMediaType(accept, OCTET_STREAM)) return;
    // Cleared first: Hono would otherwise carry the refused response's headers (length, ETag, disposition) over.
    c.res = undefined;
    c.res = errorResponse(c, notAcceptable([contentType]).error, { includeErrorDetails: false });
  };
}
