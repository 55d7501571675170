import { type AasxLimits, DEFAULT_MAX_MODEL_PART_BYTES, RATIO_GRACE_BYTES } from "./aasx-limits.ts";
import { partKey, partNameOfEntry } from "./part-names.ts";
import type { ZipEntry } from "./zip-directory.ts";

/**
 * Every reason to refuse a package that the central directory alone reveals: unsafe names
 * (zip-slip: a part name must never be able to leave the package when someone later writes files
 * out), too many entries, sizes over the limits, suspicious compression ratios, and entries whose
 * data overlap (the trick behind "non-recursive" zip bombs). Nothing has been inflated yet.
 */
/**
 * `streamed`: entries read as a stream and never held (the aas-spec part, docs/adr/0037): the size
 * limits and the ratio, which bound what inflating may hold, do not apply to them.
 */
export function entryProblems(
  entries: readonly ZipEntry[],
  limits: AasxLimits,
  streamed: (entry: ZipEntry) => boolean = () => false,
): string[] {
  const problems: string[] = [];
  let total = 0;
  const seen = new Map<string, string>();
  for (const entry of entries) {
    const nameProblem = unsafeNameReason(entry.name);
    if (nameProblem !== undefined) problems.push(`entry "${printable(entry.name)}": ${nameProblem}`);
    // Parts are keyed by their decoded, case-folded names (part-names.ts): "aasx%2Fmodel.json" and
    // "aasx/files/%78.txt" name the same parts as "aasx/model.json" and "aasx/files/x.txt", which
    // OPC forbids (ISO/IEC 29500-2 §9.1.1); compared raw, the first one silently won.
    const key = partKey(partNameOfEntry(entry.name));
    const earlier = seen.get(key);
    if (earlier !== undefined)
      problems.push(`entry "${printable(entry.name)}" appears twice (also as "${printable(earlier)}")`);
    else seen.set(key, entry.name);

    if (streamed(entry)) {
      const maxModel = limits.maxModelPartBytes ?? DEFAULT_MAX_MODEL_PART_BYTES;
      if (entry.uncompressedSize > maxModel)
        problems.push(
          `entry "${printable(entry.name)}" (the model) declares ${entry.uncompressedSize} bytes, more than the limit of ${maxModel} (core.aasxMaxModelSize)`,
        );
      continue;
    }
    total += entry.uncompressedSize;
    if (entry.uncompressedSize > limits.maxEntryUncompressedBytes) {
      problems.push(
        `entry "${printable(entry.name)}" declares ${entry.uncompressedSize} bytes, more than the limit of ${limits.maxEntryUncompressedBytes} per entry (core.aasxMaxEntrySize)`,
      );
    }
    if (
      entry.uncompressedSize > RATIO_GRACE_BYTES &&
      entry.compressedSize / entry.uncompressedSize < limits.minInflateRatio
    ) {
      const ratio = entry.compressedSize / entry.uncompressedSize;
      problems.push(
        `entry "${printable(entry.name)}" expands from ${entry.compressedSize} to ${entry.uncompressedSize} bytes ` +
          `(ratio ${ratio.toPrecision(3)}, below the minimum inflate ratio ${limits.minInflateRatio}): a zip bomb? (core.minInflateRatio)`,
      );
    }
  }
  if (total > limits.maxTotalUncompressedBytes) {
    problems.push(
      `the entries declare ${total} bytes in total, more than the limit of ${limits.maxTotalUncompressedBytes} (core.aasxMaxTotalSize)`,
    );
  }
  problems.push(...overlaps(entries));
  return problems;
}

/** Why a zip entry name is not a safe OPC part name, or undefined when it is. */
/** The longest part name (with its leading "/") a package may have: the metamodel's PathType. */
export const MAX_PART_NAME_CHARS = 2000;

export function unsafeNameReason(name: string): string | undefined {
  if (name.includes("\\")) return "contains a backslash";
  if (name.includes("\0")) return "contains a NUL character";
  if (name.startsWith("/")) return "is an absolute path";
  if (/^[A-Za-z]:/.test(name)) return "starts with a drive letter";
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    return "has an invalid percent-encoding";
  }
  // A File names its part by a path, which the metamodel bounds (PathType, 2000 characters); a
  // longer part name was taken as far as the file store, whose keys stop at 4096, and answered 500.
  if (decoded.length + 1 > MAX_PART_NAME_CHARS) return `is longer than ${MAX_PART_NAME_CHARS} characters`;
  // Percent-encoded dots and slashes count too: the part name is what gets used later.
  for (const candidate of [name, decoded]) {
    if (candidate.split(/[/\\]/).some((segment) => segment === ".." || segment === "."))
      return 'has a "." or ".." segment';
    if (candidate.startsWith("/") || candidate.startsWith("\\") || /^[A-Za-z]:/.test(candidate))
      return "is an absolute path";
  }
  return undefined;
}

function overlaps(entries: readonly ZipEntry[]): string[] {
  const sorted = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  const problems: string[] = [];
  for (let index = 1; index < sorted.length; index++) {
    const previous = sorted[index - 1];
    // The local header is at least 30 bytes plus the name; the data follows it.
    if (previous.localHeaderOffset + 30 + previous.compressedSize > sorted[index].localHeaderOffset) {
      problems.push(`entries "${printable(previous.name)}" and "${printable(sorted[index].name)}" overlap`);
    }
  }
  return problems;
}

function printable(name: string): string {
  // Control characters in a hostile name must not garble the error message.
  return name.replace(/[\u0000-\u001f\u007f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
