import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "./api-error.ts";

/**
 * `maxRequestBodySize`: a declared Content-Length above it answers 413 before a byte of the body is
 * read; a chunked body is counted while it is read and abandoned with 413 once it passes the limit.
 */
export function bodySizeLimit(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw ApiError.of("payload-too-large", `The request body exceeds the limit of ${maxBytes} bytes (maxRequestBodySize)`);
    },
  });
}
