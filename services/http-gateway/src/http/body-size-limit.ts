import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "./api-error.ts";

/**
 * `maxRequestBodySize`: a declared Content-Length above it answers 413 before a byte of the body is
 * read; a chunked body is counted while it is read and abandoned with 413 once it passes the limit.
 */
export function bodySizeLimit(maxBytes: number): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw ApiError.of("payload-too-large", `The request body exceeds the limit of ${maxBytes} bytes (maxRequestBodySize)`);
    },
  });
  // Hono's bodyLimit looks at `c.req.raw.body`, which makes @hono/node-server build a full Request
  // object for every request; the API reads no body on these methods, so they skip the check.
  return (c, next) => (METHODS_WITHOUT_BODY.has(c.req.method) ? next() : limit(c, next));
}

const METHODS_WITHOUT_BODY = new Set(["GET", "HEAD", "DELETE", "OPTIONS"]);
