import { AasError } from "./aas-error.ts";

/**
 * aas-core's pattern checks (MIME types, anyURI, …) are regular expressions that recurse per
 * character: a value of a few million characters overflows the stack (RangeError) instead of
 * failing the check. Such a value of these types is far beyond what the metamodel allows (a content
 * type has at most 128 characters), so it is reported as the invalid input it is, a 400, never a
 * 500. Binary values (xs:base64Binary, xs:hexBinary, a Blob's bytes), which may rightly be that
 * long, are checked in one pass instead (binary-lexical.ts, long-binary-values.ts).
 */
export function guardedCheck<T>(what: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof RangeError)
      throw new AasError("verification", `${what}: a value is too long to be checked (${error.message})`);
    throw error;
  }
}
