/** What an AASX package holds, as readAasx returns it and writeAasx takes it. */

export interface AasxPart {
  /** Package part name, decoded, with a leading "/" (e.g. "/aasx/files/manual.pdf"). */
  path: string;
  contentType: string;
  bytes: Uint8Array;
}

export interface AasxContent {
  /** The AAS environment as jsonable AAS JSON (not yet validated: pass it to readAas). */
  environment: Record<string, unknown>;
  /** The serialization of the spec part in the package. */
  format: "xml" | "json";
  /** Part name of the spec part (the aas-spec relationship's target). */
  specPath: string;
  /** Supplementary files: aas-suppl targets, plus package parts File elements point to. */
  files: AasxPart[];
  /** The package thumbnail (package relationship metadata/thumbnail), if any. */
  thumbnail?: AasxPart;
}

export interface AasxWriteInput {
  environment: Record<string, unknown>;
  files: AasxPart[];
  thumbnail?: AasxPart;
  /** Serialization of the spec part; default "xml" (what every AASX tool reads). */
  format?: "xml" | "json";
}

/**
 * Relationship types. The AASX spec (IDTA-01005) names them under http://admin-shell.io/…; the
 * AASX Package Explorer long wrote http://www.admin-shell.io/…, so reading accepts both.
 */
export const ORIGIN_RELATIONSHIP = "http://admin-shell.io/aasx/relationships/aasx-origin";
export const SPEC_RELATIONSHIP = "http://admin-shell.io/aasx/relationships/aas-spec";
export const SUPPLEMENTARY_RELATIONSHIP = "http://admin-shell.io/aasx/relationships/aas-suppl";
export const THUMBNAIL_RELATIONSHIP = "http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail";

/** Whether a relationship type read from a package is `canonical`, in either spelling. */
export function isRelationshipType(type: string, canonical: string): boolean {
  return type === canonical || type === canonical.replace("http://admin-shell.io/", "http://www.admin-shell.io/");
}
