/** Output modifiers of AAS Part 2 (§c of the digest); applied in the engine, not after transfer. */
export type Level = "deep" | "core";
export type Extent = "withBlobValue" | "withoutBlobValue";
/** normal = plain AAS JSON; the others are the /$metadata, /$value, /$reference, /$path forms. */
export type Content = "normal" | "metadata" | "value" | "reference" | "path";

export interface OutputModifiers {
  level?: Level;
  extent?: Extent;
  content?: Content;
}

/** Paging of list operations. `cursor` is opaque to clients; `limit` ≥ 1. */
export interface PageRequest {
  limit?: number;
  cursor?: string;
}

export const DEFAULT_PAGE_LIMIT = 100;

/**
 * Conditional-request preconditions, checked inside the engine in the same atomic step as the write.
 * Values are revisions as decimal strings, or "*".
 */
export interface Preconditions {
  ifMatch?: string[];
  ifNoneMatch?: string[];
}
