import { AasError } from "./aas-error.ts";
import { echoed } from "./echoed-value.ts";

/**
 * Identifiers in API paths are base64url of their UTF-8 bytes (RFC 4648 §5). We emit unpadded,
 * and accept padded, unpadded and "%3D"-escaped padding, because v3.0.1 declared the parameters
 * `format: byte` and clients differ. Node's Buffer decoder silently skips characters outside the
 * alphabet, so everything is validated before decoding.
 */

const SHAPE = /^[A-Za-z0-9_-]*(={0,2})$/;
// ignoreBOM: a leading U+FEFF is part of the identifier. Dropped, `\uFEFFurn:x` could be created
// but never addressed, and its URL named (and deleted) `urn:x`.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export function encodeBase64Url(text: string): string {
  return Buffer.from(text, "utf8").toString("base64url");
}

export function decodeBase64Url(encoded: string): string {
  const text = encoded.replace(/%3D/gi, "=");
  const shape = SHAPE.exec(text);
  if (shape === null)
    throw invalid(encoded, "only the characters A-Z a-z 0-9 - _ and trailing '=' padding are allowed");
  const padding = shape[1].length;
  const core = text.slice(0, text.length - padding);
  if (core.length === 0) throw invalid(encoded, "it is empty");
  if (core.length % 4 === 1) throw invalid(encoded, "its length cannot come from encoding whole bytes");
  if (padding > 0 && (core.length + padding) % 4 !== 0) throw invalid(encoded, "the padding does not fit its length");
  const bytes = Buffer.from(core, "base64url");
  // Non-zero bits in the last character would give a second spelling of the same identifier.
  if (bytes.toString("base64url") !== core) throw invalid(encoded, "it is not in canonical form");
  try {
    return utf8.decode(bytes);
  } catch {
    throw invalid(encoded, "it does not decode to UTF-8 text");
  }
}

function invalid(encoded: string, why: string): AasError {
  return new AasError("base64url", `"${echoed(encoded)}" is not a valid base64url-encoded identifier: ${why}`);
}
