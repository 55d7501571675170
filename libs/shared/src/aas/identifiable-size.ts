import { AasError } from "./aas-error.ts";

/**
 * The default of `core.importMaxIdentifiableSize`: the most text (characters of JSON or XML) one
 * identifiable may take in an import, like `maxRequestBodySize` bounds what a REST write brings.
 * Without it, the AASX spec part (exempt from the package size limits, ADR 0037) let a package of
 * a few hundred kilobytes make one identifiable of 300 MB (1.45 GB of RSS, seconds of stall), and
 * one over V8's longest string (~512 M characters) failed as an internal error.
 */
export const DEFAULT_MAX_IDENTIFIABLE_CHARS = 64 * 1024 * 1024;

/** The refusal of an identifiable whose text passed the limit (refused while it is read, before it is held whole). */
export function identifiableTooLarge(where: string, limit: number): AasError {
  return new AasError(
    "too-large",
    `${where} is longer than ${limit} characters, the most one identifiable may take in an import (core.importMaxIdentifiableSize)`,
    { path: where },
  );
}
