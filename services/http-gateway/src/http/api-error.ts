import type { ErrorCode, ReplyError } from "@twinport/shared";

/**
 * A failure on its way to becoming an HTTP error response: either a reply error from the store, or
 * a request the gateway itself rejects (bad base64url, bad query, empty body, unknown path...).
 * Handlers throw it; the app's error handler renders it, so every error takes the same path.
 */
export class ApiError extends Error {
  readonly error: ReplyError;

  constructor(error: ReplyError) {
    super(error.message);
    this.name = "ApiError";
    this.error = error;
  }

  static of(code: ErrorCode, message: string): ApiError {
    return new ApiError({ code, message });
  }
}

export function badRequest(message: string): ApiError {
  return ApiError.of("bad-request", message);
}
