import type { ErrorCode } from "@twinport/shared";
import { type StatusCode, StatusCodes } from "node-opcua";

/** The one mapping from the store's error codes to OPC UA status codes (docs/architecture.md §3). */
const STATUS: Record<ErrorCode, StatusCode> = {
  "bad-request": StatusCodes.BadOutOfRange,
  validation: StatusCodes.BadOutOfRange,
  forbidden: StatusCodes.BadUserAccessDenied,
  "not-found": StatusCodes.BadNodeIdUnknown,
  conflict: StatusCodes.BadInvalidState,
  "precondition-failed": StatusCodes.BadInvalidState,
  "method-not-allowed": StatusCodes.BadNotWritable,
  // Only HTTP negotiates representations; mapped for completeness.
  "not-acceptable": StatusCodes.BadNotSupported,
  "payload-too-large": StatusCodes.BadEncodingLimitsExceeded,
  // Only HTTP bodies have a media type; mapped for completeness.
  "unsupported-media-type": StatusCodes.BadInvalidArgument,
  // Only HTTP sends Idempotency-Keys; mapped for completeness.
  unprocessable: StatusCodes.BadInvalidArgument,
  unavailable: StatusCodes.BadResourceUnavailable,
  timeout: StatusCodes.BadTimeout,
  internal: StatusCodes.BadInternalError,
};

export function statusForError(code: ErrorCode): StatusCode {
  return STATUS[code] ?? StatusCodes.BadInternalError;
}
