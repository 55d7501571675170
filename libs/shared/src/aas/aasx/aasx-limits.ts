import { DEFAULT_MAX_IDENTIFIABLE_CHARS } from "../identifiable-size.ts";

/**
 * Bounds on what reading an AASX package may cost. They are checked against the zip's central
 * directory before anything is inflated, and the inflater enforces each entry's declared size and
 * one budget for the whole package, so a crafted package cannot make the server allocate more than
 * these numbers allow. Configured under `core` (aasxMaxEntries, aasxMaxTotalSize,
 * aasxMaxEntrySize, minInflateRatio).
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
  /**
   * The aas-spec part (the model) is streamed, never held (docs/adr/0037), so the limits above do
   * not apply to it; this bounds the work it can cause instead: a bomb of valid-looking text (say,
   * gigabytes of whitespace inside the environment) would otherwise keep the importer busy for
   * minutes. Absent = the default.
   */
  maxModelPartBytes?: number;
  /**
   * The most text (characters of JSON or XML) one identifiable may take in an import (packages,
   * POST /import, start-up models; core.importMaxIdentifiableSize). Not an AASX limit only, but it
   * travels with these to every import. Absent = DEFAULT_MAX_IDENTIFIABLE_CHARS.
   */
  maxIdentifiableChars?: number;
}

/**
 * Defaults that keep a small edge device (512 MiB–1 GiB of memory) safe: a package is held
 * inflated in memory while it is imported and then copied into the file store (in distributed
 * mode also base64 over NATS into Redis), so its inflated size is paid two to three times over.
 * The 1 GiB / 10,000-entry defaults before let a 2.3 MB zip of 9,999 ratio-exempt 100 KiB entries
 * inflate to ~1 GB.
 */
/** The default of `core.aasxMaxModelSize`. */
export const DEFAULT_MAX_MODEL_PART_BYTES = 2 * 1024 ** 3;

export const DEFAULT_AASX_LIMITS: Readonly<AasxLimits> = Object.freeze({
  /** 0.01: at most 100× expansion per entry (the value FA³ST and Apache POI use). */
  minInflateRatio: 0.01,
  /** 1,000 entries: real packages have tens to a few hundred parts; bounds directory work too. */
  maxEntries: 1_000,
  /** 256 MiB inflated in total, one budget for the whole package. */
  maxTotalUncompressedBytes: 256 * 1024 * 1024,
  /** 128 MiB inflated per entry (a large CAD file or video is still fine). */
  maxEntryUncompressedBytes: 128 * 1024 * 1024,
  /** 2 GiB of model text: about 15M elements in our own exports (1M elements is ~130 MB). */
  maxModelPartBytes: DEFAULT_MAX_MODEL_PART_BYTES,
  /** 64 MiB of text per identifiable, maxRequestBodySize's default. */
  maxIdentifiableChars: DEFAULT_MAX_IDENTIFIABLE_CHARS,
});

/** Entries up to this inflated size skip the ratio check (the same grace Apache POI gives). */
export const RATIO_GRACE_BYTES = 100 * 1024;
