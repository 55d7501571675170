import type { ModelFormat } from "@twinport/shared";

/**
 * Media types of AAS model documents. AASX has three spellings in the specifications (the
 * Serialization API's `…package+xml`, the SerializationFormat enum's `application/aasx+xml`, the
 * AASX File Server's `…package`): all are accepted.
 */
const FORMAT_OF_TYPE: Record<string, ModelFormat> = {
  "application/json": "json",
  "application/xml": "xml",
  "text/xml": "xml",
  "application/asset-administration-shell-package+xml": "aasx",
  "application/asset-administration-shell-package": "aasx",
  "application/aasx+xml": "aasx",
};

export const ACCEPTED_MODEL_TYPES = Object.keys(FORMAT_OF_TYPE);

/**
 * What the Serialization API offers, in order of preference when Accept leaves a choice: JSON
 * first (no Accept, `*\/*` and `application/*` mean JSON, what the IDTA test engine expects),
 * then XML, then the package.
 */
export const SERIALIZATION_TYPES = ACCEPTED_MODEL_TYPES;

/** The format a Content-Type names (parameters such as charset ignored), or undefined. */
export function formatOfContentType(contentType: string | undefined): ModelFormat | undefined {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  return FORMAT_OF_TYPE[type];
}
