/**
 * Reads a zip's central directory (PKWARE APPNOTE 4.3.12–4.3.16, with ZIP64) without inflating
 * anything, so every entry's name and declared sizes can be checked before a single byte is
 * decompressed. fflate's unzipSync would inflate as it goes; here the guard comes first.
 */

export interface ZipEntry {
  /** The entry name as stored (for OPC: the part name without its leading "/", percent-encoded). */
  name: string;
  method: number;
  flags: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

export interface ZipDirectory {
  entries: ZipEntry[];
  /** The entry count the end record declares (checked against the limit before parsing entries). */
  declaredCount: number;
}

export class ZipFormatError extends Error {}

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;

/** The end record and where the directory is; throws ZipFormatError when there is none. */
export function readZipEnd(bytes: Uint8Array): {
  declaredCount: number;
  directoryOffset: number;
  directorySize: number;
} {
  const view = viewOf(bytes);
  const eocd = findEndRecord(bytes, view);
  if (eocd < 0)
    throw new ZipFormatError("no end of central directory record: the file is truncated or not a zip archive");
  let declaredCount = view.getUint16(eocd + 10, true);
  let directorySize = view.getUint32(eocd + 12, true);
  let directoryOffset = view.getUint32(eocd + 16, true);
  const locator = eocd - 20;
  if (locator >= 0 && view.getUint32(locator, true) === ZIP64_LOCATOR_SIGNATURE) {
    const zip64End = safeNumber(view.getBigUint64(locator + 8, true));
    if (zip64End + 56 > bytes.length || view.getUint32(zip64End, true) !== ZIP64_EOCD_SIGNATURE) {
      throw new ZipFormatError("the ZIP64 end of central directory record is missing or damaged");
    }
    declaredCount = safeNumber(view.getBigUint64(zip64End + 32, true));
    directorySize = safeNumber(view.getBigUint64(zip64End + 40, true));
    directoryOffset = safeNumber(view.getBigUint64(zip64End + 48, true));
  }
  if (directoryOffset + directorySize > bytes.length) {
    throw new ZipFormatError("the central directory lies beyond the end of the file: the file is truncated");
  }
  return { declaredCount, directoryOffset, directorySize };
}

export function readZipDirectory(bytes: Uint8Array, end = readZipEnd(bytes)): ZipDirectory {
  const view = viewOf(bytes);
  const entries: ZipEntry[] = [];
  let offset = end.directoryOffset;
  const limit = end.directoryOffset + end.directorySize;
  for (let index = 0; index < end.declaredCount; index++) {
    if (offset + 46 > limit || view.getUint32(offset, true) !== CENTRAL_SIGNATURE) {
      throw new ZipFormatError(`central directory entry ${index + 1} of ${end.declaredCount} is missing or damaged`);
    }
    const flags = view.getUint16(offset + 8, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const next = offset + 46 + nameLength + extraLength + commentLength;
    if (next > limit) throw new ZipFormatError(`central directory entry ${index + 1} runs past the directory`);
    const nameBytes = bytes.subarray(offset + 46, offset + 46 + nameLength);
    // Bit 11: the name is UTF-8; otherwise it is CP437, of which the ASCII part is what OPC uses.
    const name = new TextDecoder(flags & 0x800 ? "utf-8" : "latin1").decode(nameBytes);
    const entry: ZipEntry = {
      name,
      flags,
      method: view.getUint16(offset + 10, true),
      crc32: view.getUint32(offset + 16, true),
      compressedSize: view.getUint32(offset + 20, true),
      uncompressedSize: view.getUint32(offset + 24, true),
      localHeaderOffset: view.getUint32(offset + 42, true),
    };
    applyZip64Extra(entry, view, offset + 46 + nameLength, extraLength);
    entries.push(entry);
    offset = next;
  }
  return { entries, declaredCount: end.declaredCount };
}

/** Where an entry's compressed bytes are, from its local header; throws ZipFormatError if out of range. */
export function entryDataRange(bytes: Uint8Array, entry: ZipEntry): { start: number; end: number } {
  const view = viewOf(bytes);
  const header = entry.localHeaderOffset;
  if (header + 30 > bytes.length || view.getUint32(header, true) !== LOCAL_SIGNATURE) {
    throw new ZipFormatError(`the local header of ${entry.name} is missing or damaged`);
  }
  const start = header + 30 + view.getUint16(header + 26, true) + view.getUint16(header + 28, true);
  const end = start + entry.compressedSize;
  if (end > bytes.length)
    throw new ZipFormatError(`the data of ${entry.name} runs past the end of the file (truncated)`);
  return { start, end };
}

// Sizes and offsets of 0xFFFFFFFF mean "see the ZIP64 extra field (id 1)", which lists only
// those, in this order.
function applyZip64Extra(entry: ZipEntry, view: DataView, start: number, length: number): void {
  const MAX32 = 0xffffffff;
  if (entry.uncompressedSize !== MAX32 && entry.compressedSize !== MAX32 && entry.localHeaderOffset !== MAX32) return;
  let offset = start;
  while (offset + 4 <= start + length) {
    const id = view.getUint16(offset, true);
    const size = view.getUint16(offset + 2, true);
    if (id === 0x0001) {
      let field = offset + 4;
      const read = () => {
        if (field + 8 > offset + 4 + size)
          throw new ZipFormatError(`the ZIP64 extra field of ${entry.name} is too short`);
        const value = safeNumber(view.getBigUint64(field, true));
        field += 8;
        return value;
      };
      if (entry.uncompressedSize === MAX32) entry.uncompressedSize = read();
      if (entry.compressedSize === MAX32) entry.compressedSize = read();
      if (entry.localHeaderOffset === MAX32) entry.localHeaderOffset = read();
      return;
    }
    offset += 4 + size;
  }
  throw new ZipFormatError(`${entry.name} needs a ZIP64 extra field and has none`);
}

function findEndRecord(bytes: Uint8Array, view: DataView): number {
  const lowest = Math.max(0, bytes.length - EOCD_SIZE - MAX_COMMENT);
  for (let offset = bytes.length - EOCD_SIZE; offset >= lowest; offset--) {
    if (
      view.getUint32(offset, true) === EOCD_SIGNATURE &&
      offset + EOCD_SIZE + view.getUint16(offset + 20, true) <= bytes.length
    ) {
      return offset;
    }
  }
  return -1;
}

function safeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new ZipFormatError("a ZIP64 size or offset is out of range");
  return Number(value);
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
