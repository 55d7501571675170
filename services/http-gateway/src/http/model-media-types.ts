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

/** The format a Content-Type names (parameters such as charset ignored), or undefined. */
export function formatOfContentType(contentType: string | undefined): ModelFormat | undefined {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  return FORMAT_OF_TYPE[type];
}

/**
 * The format to answer with, from an Accept header: the acceptable media range with the highest
 * q; `*\/*`, `application/*` and no header at all mean JSON (what the IDTA test engine expects).
 * Undefined when nothing acceptable is a format we write.
 */
export function negotiateModelFormat(accept: string | undefined): ModelFormat | undefined {
  if (accept === undefined || accept.trim() === "") return "json";
  const ranges = accept
    .split(",")
    .map((part, index) => {
      const [type = "", ...parameters] = part.split(";").map((piece) => piece.trim());
      const q = parameters.map((p) => /^q=([0-9.]+)$/i.exec(p)).find((m) => m !== null);
      return { type: type.toLowerCase(), q: q ? Number(q[1]) : 1, index };
    })
    .filter((range) => range.type !== "" && range.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { type } of ranges) {
    if (FORMAT_OF_TYPE[type]) return FORMAT_OF_TYPE[type];
    if (type === "*/*" || type === "application/*") return "json";
    if (type === "text/*") return "xml";
  }
  return undefined;
}
