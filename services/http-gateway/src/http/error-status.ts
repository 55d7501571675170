import type { ErrorCode } from "@twinport/shared";

/** The one mapping from store error codes to HTTP status codes. */
const STATUS_OF: Record<ErrorCode, number> = {
  "bad-request": 400,
  validation: 400,
  // 401 instead when the caller is anonymous (error-response.ts): logging in may help.
  forbidden: 403,
  "not-found": 404,
  conflict: 409,
  "precondition-failed": 412,
  "method-not-allowed": 405,
  "not-acceptable": 406,
  "payload-too-large": 413,
  "unsupported-media-type": 415,
  unprocessable: 422,
  unavailable: 503,
  timeout: 504,
  internal: 500,
};

export function httpStatusOf(code: ErrorCode): number {
  // An unknown code (a newer store talking to an older gateway) is still an error, not a crash.
  return STATUS_OF[code] ?? 500;
}
