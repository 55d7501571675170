import type { z } from "zod";

/**
 * `@class` values are Java class names in FA³ST files
 * (`de.fraunhofer.iosb.ilt.faaast.service.endpoint.http.HttpEndpoint`); we match on the meaningful
 * suffix, the last three segments, so FA³ST's full names and our short ones both load.
 */
export function classSuffix(value: string): string {
  return value.split(".").slice(-3).join(".");
}

/** A section whose implementation is chosen by `@class` (endpoints, persistence, ...). */
export interface ClassedSection {
  /** What the section is called in error messages, e.g. "endpoint". */
  readonly what: string;
  /** Canonical short class names, for "Known: ..." in errors. */
  readonly known: readonly string[];
  /** The schema for a canonical class name (already reduced by classSuffix), or undefined. */
  schemaFor(suffix: string): z.ZodType | undefined;
  /** FA³ST classes Twinport has no counterpart for, with what to use instead (added to the error). */
  readonly unsupported?: Readonly<Record<string, string>>;
}
