/**
 * The one error type of the AAS model library. Everything here that rejects input throws it, so the
 * engine can map it to a 400 reply in one place (`kind` picks bad-request vs validation; `path`
 * and `details` travel into the AAS Result messages).
 */
export type AasErrorKind =
  | "syntax"
  | "unknown-property"
  | "deserialization"
  | "verification"
  | "base64url"
  | "id-short-path"
  | "value"
  /** Input over a size limit (a 413, not a 400). */
  | "too-large";

export interface AasErrorOptions {
  /** JSON path ("submodelElements[2].value") or idShortPath ("a.b[2]") the error refers to. */
  path?: string;
  /** Further messages, e.g. every failed metamodel constraint as "path: message". */
  details?: string[];
}

export class AasError extends Error {
  readonly kind: AasErrorKind;
  readonly path?: string;
  readonly details: string[];

  constructor(kind: AasErrorKind, message: string, options: AasErrorOptions = {}) {
    super(message);
    this.name = "AasError";
    this.kind = kind;
    if (options.path !== undefined) this.path = options.path;
    this.details = options.details ?? [];
  }
}

export function isAasError(error: unknown): error is AasError {
  return error instanceof AasError;
}
