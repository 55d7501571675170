import { crc32 } from "node:zlib";
import { Inflate } from "fflate";
import { entryDataRange, type ZipEntry, ZipFormatError } from "./zip-directory.ts";

/**
 * One entry's content, never larger than its declared size. The declared size was checked against
 * the limits already; the inflater is fed slices and stops as soon as the output would pass that
 * size, so a header that lies about the size cannot smuggle a bomb past the check. Deflate expands
 * at most ~1032×, so one slice of declared/512 bytes (1–64 KiB) can overshoot by about twice the
 * declared size or 1 MiB, whichever is larger, before the check sees it.
 */
export function readEntryData(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  if (entry.flags & 0x1) throw new ZipFormatError(`${entry.name} is encrypted`);
  const { start, end } = entryDataRange(bytes, entry);
  const compressed = bytes.subarray(start, end);
  let data: Uint8Array;
  if (entry.method === STORED) {
    if (compressed.length !== entry.uncompressedSize)
      throw new ZipFormatError(`${entry.name}: stored size differs from the declared size`);
    data = compressed.slice();
  } else if (entry.method === DEFLATED) {
    data = inflateBounded(compressed, entry.uncompressedSize, entry.name);
  } else {
    throw new ZipFormatError(
      `${entry.name} uses compression method ${entry.method}; only stored (0) and deflate (8) are supported`,
    );
  }
  if (crc32(data) !== entry.crc32) throw new ZipFormatError(`${entry.name} is corrupt (CRC-32 mismatch)`);
  return data;
}

const STORED = 0;
const DEFLATED = 8;
// Small slices bound the overshoot; large ones amortise fflate's per-push copy of its 32 KiB window.
const MIN_SLICE = 1024;
const MAX_SLICE = 64 * 1024;
const STREAM_SLICE = 8 * 1024;

class SizeExceeded extends Error {}

function inflateBounded(compressed: Uint8Array, declaredSize: number, name: string): Uint8Array {
  const out = new Uint8Array(declaredSize);
  let written = 0;
  const inflater = new Inflate((chunk) => {
    if (written + chunk.length > declaredSize) throw new SizeExceeded();
    out.set(chunk, written);
    written += chunk.length;
  });
  const slice = Math.min(MAX_SLICE, Math.max(MIN_SLICE, Math.floor(declaredSize / 512)));
  try {
    if (compressed.length === 0) inflater.push(compressed, true);
    for (let offset = 0; offset < compressed.length; offset += slice) {
      const last = offset + slice >= compressed.length;
      inflater.push(compressed.subarray(offset, Math.min(offset + slice, compressed.length)), last);
    }
  } catch (error) {
    if (error instanceof SizeExceeded) {
      throw new ZipFormatError(`${name} inflates to more than its declared ${declaredSize} bytes (a lying header)`);
    }
    throw new ZipFormatError(`${name}: invalid compressed data (${(error as Error).message})`);
  }
  if (written !== declaredSize)
    throw new ZipFormatError(`${name} inflates to ${written} bytes, not the declared ${declaredSize}`);
  return out;
}

/**
 * One entry's content as a stream of chunks, for a part that is read once and never held (the
 * aas-spec part of a large package, docs/adr/0037). Held to its declared size like readEntryData
 * (a lying header stops the stream), checked against its CRC-32 at the end: a consumer must treat
 * what it read as unconfirmed until the iteration has ended without an error.
 */
export function* entryDataChunks(bytes: Uint8Array, entry: ZipEntry): Generator<Uint8Array> {
  if (entry.flags & 0x1) throw new ZipFormatError(`${entry.name} is encrypted`);
  const { start, end } = entryDataRange(bytes, entry);
  const compressed = bytes.subarray(start, end);
  if (entry.method === STORED) {
    if (compressed.length !== entry.uncompressedSize)
      throw new ZipFormatError(`${entry.name}: stored size differs from the declared size`);
    if (crc32(compressed) !== entry.crc32) throw new ZipFormatError(`${entry.name} is corrupt (CRC-32 mismatch)`);
    for (let offset = 0; offset < compressed.length; offset += MAX_SLICE)
      yield compressed.subarray(offset, offset + MAX_SLICE);
    return;
  }
  if (entry.method !== DEFLATED)
    throw new ZipFormatError(
      `${entry.name} uses compression method ${entry.method}; only stored (0) and deflate (8) are supported`,
    );
  let pending: Uint8Array[] = [];
  let written = 0;
  let crc = 0;
  const inflater = new Inflate((chunk) => {
    written += chunk.length;
    if (written > entry.uncompressedSize) throw new SizeExceeded();
    crc = crc32(chunk, crc);
    // fflate reuses nothing it hands out, so the chunk can be kept until it is yielded.
    pending.push(chunk);
  });
  const feed = (slice: Uint8Array, last: boolean) => {
    try {
      inflater.push(slice, last);
    } catch (error) {
      if (error instanceof SizeExceeded)
        throw new ZipFormatError(
          `${entry.name} inflates to more than its declared ${entry.uncompressedSize} bytes (a lying header)`,
        );
      throw new ZipFormatError(`${entry.name}: invalid compressed data (${(error as Error).message})`);
    }
  };
  if (compressed.length === 0) feed(compressed, true);
  // Small slices: what one slice inflates to is what a reader holds at once (≤ ~1,032× the slice).
  for (let offset = 0; offset < compressed.length; offset += STREAM_SLICE) {
    const last = offset + STREAM_SLICE >= compressed.length;
    feed(compressed.subarray(offset, Math.min(offset + STREAM_SLICE, compressed.length)), last);
    const out = pending;
    pending = [];
    yield* out;
  }
  if (written !== entry.uncompressedSize)
    throw new ZipFormatError(`${entry.name} inflates to ${written} bytes, not the declared ${entry.uncompressedSize}`);
  if (crc !== entry.crc32) throw new ZipFormatError(`${entry.name} is corrupt (CRC-32 mismatch)`);
}
