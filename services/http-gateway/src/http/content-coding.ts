import { ApiError } from "./api-error.ts";

/**
 * Request bodies are read as sent: no content coding is decoded (RFC 9110 §8.4). A body that says it
 * is gzip- or deflate-coded is refused with 415 instead of being read as if it were not, which
 * stored the coded bytes (or a lying header's plain ones) as they came. `identity` is no coding.
 */
export function refuseContentCoding(header: string | undefined): void {
  if (header === undefined) return;
  const codings = header
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
  if (codings.length === 0) return;
  throw ApiError.of(
    "unsupported-media-type",
    `Content-Encoding '${header.slice(0, 100)}' is not supported: send the body without a content coding`,
  );
}
