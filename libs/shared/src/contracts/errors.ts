/**
 * Error codes are data: every gateway has exactly one mapping from code to its protocol
 * (HTTP status + AAS Result body, OPC UA StatusCode). Keep this list short and meaningful.
 */
export const ERROR_CODES = [
  "bad-request", // malformed input: JSON, base64url, modifiers, paths (HTTP 400)
  "validation", // well-formed but violates the metamodel or a constraint (HTTP 400)
  "forbidden", // the access rules do not grant the caller this (HTTP 403; 401 for an anonymous caller)
  "not-found", // unknown id or idShortPath (HTTP 404)
  "conflict", // id or idShort already exists (HTTP 409)
  "precondition-failed", // If-Match / If-None-Match did not hold (HTTP 412)
  "method-not-allowed", // the operation does not fit the element kind (HTTP 405)
  "not-acceptable", // the request's Accept excludes every representation offered (HTTP 406)
  "payload-too-large", // (HTTP 413)
  "unsupported-media-type", // a body whose Content-Type the operation does not take (HTTP 415)
  "unprocessable", // an Idempotency-Key reused for a different request (HTTP 422)
  "unavailable", // a backend cannot be reached and the command surely did not run (HTTP 503)
  "timeout", // no answer in time, or the answer was lost: a write's outcome is unknown (HTTP 504)
  "internal", // a bug or an unexpected failure (HTTP 500)
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ReplyError {
  code: ErrorCode;
  message: string;
  /** JSON path or idShortPath the error refers to, when there is one. */
  path?: string;
  /** Further messages, e.g. every metamodel constraint that failed (collected, not just the first). */
  details?: string[];
  /** Stack trace of an internal error; gateways show it only with includeErrorDetails. */
  stack?: string;
}

/** A failure the engine raises on purpose; anything else thrown is an internal error. */
export class CommandError extends Error {
  readonly code: ErrorCode;
  readonly path?: string;
  readonly details?: string[];
  constructor(code: ErrorCode, message: string, options: { path?: string; details?: string[] } = {}) {
    super(message);
    this.name = "CommandError";
    this.code = code;
    this.path = options.path;
    this.details = options.details;
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);
}
