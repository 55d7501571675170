import { AasError } from "../aas-error.ts";
import { type AasxLimits, DEFAULT_AASX_LIMITS } from "./aasx-limits.ts";
import { partKey, partNameOfEntry } from "./part-names.ts";
import { readZipDirectory, readZipEnd, type ZipDirectory, type ZipEntry, ZipFormatError } from "./zip-directory.ts";
import { readEntryData } from "./zip-entry-data.ts";
import { entryProblems } from "./zip-guard.ts";

/**
 * Zip bytes → the package's parts, inflated, keyed by partKey. Checks run in the order that keeps
 * the cost bounded: the end record (entry count) before the directory, the directory (names,
 * sizes, ratios) before any inflating, and the inflater bounded by each declared size.
 */

export interface PackagePart {
  path: string;
  bytes: Uint8Array;
}

export function inflatePackage(bytes: Uint8Array, limits: AasxLimits = DEFAULT_AASX_LIMITS): Map<string, PackagePart> {
  return inflateEntries(bytes, checkPackageDirectory(bytes, limits), limits);
}

/** Everything the directory alone reveals, checked before a byte is inflated (cheap: no inflating). */
export function checkPackageDirectory(
  bytes: Uint8Array,
  limits: AasxLimits,
  streamed?: (entry: ZipEntry) => boolean,
): ZipDirectory {
  const directory = readPackageDirectory(bytes, limits);
  const problems = entryProblems(directory.entries, limits, streamed);
  if (problems.length > 0) throw packageError(problems);
  return directory;
}

/** The directory, its entry count checked first; the entries themselves not checked yet. */
export function readPackageDirectory(bytes: Uint8Array, limits: AasxLimits): ZipDirectory {
  try {
    const end = readZipEnd(bytes);
    if (end.declaredCount > limits.maxEntries) {
      throw packageError([
        `the package has ${end.declaredCount} entries, more than the limit of ${limits.maxEntries} (core.aasxMaxEntries)`,
      ]);
    }
    return readZipDirectory(bytes, end);
  } catch (error) {
    if (error instanceof ZipFormatError) throw packageError([error.message]);
    throw error;
  }
}

/**
 * Inflates the entries against one budget for the whole package (each entry is also held to its
 * declared size), and stops at the first entry that fails: nothing more is inflated for a package
 * that is refused anyway.
 */
export function inflateEntries(
  bytes: Uint8Array,
  directory: ZipDirectory,
  limits: AasxLimits,
): Map<string, PackagePart> {
  const parts = new Map<string, PackagePart>();
  let budget = limits.maxTotalUncompressedBytes;
  for (const entry of directory.entries) {
    if (entry.name.endsWith("/")) continue; // a folder entry, not a part
    if (entry.uncompressedSize > budget) {
      throw packageError([
        `inflating "${entry.name}" would pass the limit of ${limits.maxTotalUncompressedBytes} bytes for the whole package (core.aasxMaxTotalSize)`,
      ]);
    }
    try {
      const path = partNameOfEntry(entry.name);
      const data = readEntryData(bytes, entry);
      budget -= data.length;
      parts.set(partKey(path), { path, bytes: data });
    } catch (error) {
      if (!(error instanceof ZipFormatError)) throw error;
      throw packageError([error.message]);
    }
  }
  return parts;
}

// A hostile directory can produce a problem per entry; the message stays readable.
const MAX_DETAILS = 100;

/** The one error readAasx throws for a broken package: the first problem, and all of them in details. */
export function packageError(problems: string[]): AasError {
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""})` : "";
  const details =
    problems.length > MAX_DETAILS
      ? [...problems.slice(0, MAX_DETAILS), `… and ${problems.length - MAX_DETAILS} more`]
      : problems;
  return new AasError("syntax", `Invalid AASX package: ${problems[0]}${more}`, { details });
}
