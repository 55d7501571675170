/**
 * Bounds on what reading an AASX package may cost. They are checked against the zip's central
 * directory before anything is inflated, and the inflater enforces each entry's declared size, so
 * a crafted package cannot make the server allocate more than these numbers allow.
 */
export interface AasxLimits {
  /**
   * Zip-bomb guard (FA³ST's `core.minInflateRatio`): an entry whose compressed/uncompressed size
   * ratio is below this is refused, e.g. 0.01 = more than 100× expansion. Entries up to
   * RATIO_GRACE_BYTES are exempt: they cannot amount to a bomb, and small files of repeated bytes
   * compress that well legitimately.
   */
  minInflateRatio: number;
  maxEntries: number;
  maxTotalUncompressedBytes: number;
  maxEntryUncompressedBytes: number;
}

export const DEFAULT_AASX_LIMITS: Readonly<AasxLimits> = Object.freeze({
  /** 0.01: at most 100× expansion per entry (the value FA³ST and Apache POI use). */
  minInflateRatio: 0.01,
  /** 10,000 entries: far more parts than a real AASX has, and bounds directory parsing work. */
  maxEntries: 10_000,
  /** 1 GiB inflated in total: the package is held in memory while it is read. */
  maxTotalUncompressedBytes: 1024 * 1024 * 1024,
  /** 512 MiB inflated per entry (a large CAD file or video is still fine). */
  maxEntryUncompressedBytes: 512 * 1024 * 1024,
});

/** Entries up to this inflated size skip the ratio check (the same grace Apache POI gives). */
export const RATIO_GRACE_BYTES = 100 * 1024;
