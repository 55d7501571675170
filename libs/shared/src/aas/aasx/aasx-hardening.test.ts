import assert from "node:assert/strict";
import { test } from "node:test";
import { strToU8, unzipSync, Zip, ZipDeflate, zipSync } from "fflate";
import { AasError } from "../aas-error.ts";
import { exampleEnvironment } from "../test-support/fixtures.ts";
import { type AasxLimits, DEFAULT_AASX_LIMITS } from "./aasx-limits.ts";
import { readAasx } from "./aasx-reader.ts";
import { writeAasx } from "./aasx-writer.ts";

function readError(bytes: Uint8Array, limits: AasxLimits = DEFAULT_AASX_LIMITS): AasError {
  try {
    readAasx(bytes, limits);
  } catch (error) {
    assert.ok(error instanceof AasError, `expected an AasError, got ${String(error)}`);
    assert.equal(error.kind, "syntax");
    assert.match(error.message, /^Invalid AASX package: /);
    return error;
  }
  assert.fail("the package was accepted");
}

/** A valid package plus extra entries (written after the real ones). */
function packageWith(extra: Record<string, Uint8Array>): Uint8Array {
  const valid = writeAasx({ environment: exampleEnvironment(), files: [] });
  // Re-zipping our own (trusted) output keeps the valid parts and appends the hostile ones.
  return zipSync({ ...unzipSync(valid), ...extra });
}

/** `megabytes` MiB of zeros deflated at level 9, streamed so the test never holds them in memory. */
function zeroBomb(name: string, megabytes: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  const zip = new Zip((error, data) => {
    if (error) throw error;
    chunks.push(data);
  });
  const entry = new ZipDeflate(name, { level: 9 });
  zip.add(entry);
  const zeros = new Uint8Array(1024 * 1024);
  for (let index = 0; index < megabytes; index++) entry.push(zeros, index === megabytes - 1);
  zip.end();
  const bytes = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/** Rewrites the uncompressed size of the only entry in its central directory record. */
function lieAboutSize(bytes: Uint8Array, declared: number): Uint8Array {
  const copy = bytes.slice();
  const view = new DataView(copy.buffer);
  const end = copy.length - 22;
  assert.equal(view.getUint32(end, true), 0x06054b50);
  const directory = view.getUint32(end + 16, true);
  assert.equal(view.getUint32(directory, true), 0x02014b50);
  view.setUint32(directory + 24, declared, true);
  return copy;
}

test("a zip bomb (200 MiB of zeros in ~200 KB) is refused from its directory, before inflating", () => {
  const bomb = zeroBomb("aasx/files/bomb.bin", 200);
  assert.ok(bomb.length < 400_000, `${bomb.length} bytes`);
  const before = process.memoryUsage().arrayBuffers;
  const started = performance.now();
  const error = readError(bomb);
  assert.ok(performance.now() - started < 1000, "refused without inflating");
  assert.ok(process.memoryUsage().arrayBuffers - before < 50 * 1024 * 1024, "nothing large was allocated");
  assert.match(
    error.details.join("\n"),
    /"aasx\/files\/bomb\.bin" expands from \d+ to 209715200 bytes \(ratio .*below the minimum inflate ratio 0\.01\)/,
  );
  // A looser ratio still meets the per-entry size limit.
  const loose = readError(bomb, {
    ...DEFAULT_AASX_LIMITS,
    minInflateRatio: 0,
    maxEntryUncompressedBytes: 100 * 1024 * 1024,
  });
  assert.match(loose.details.join("\n"), /declares 209715200 bytes, more than the limit of 104857600 per entry/);
});

test("a lying header cannot slip a bomb past the guard: inflating stops at the declared size", () => {
  // 20 MiB of zeros whose directory claims 50,000 bytes: the ratio looks harmless.
  const liar = lieAboutSize(zeroBomb("aasx/files/liar.bin", 20), 50_000);
  const before = process.memoryUsage().arrayBuffers;
  const error = readError(liar);
  assert.ok(process.memoryUsage().arrayBuffers - before < 16 * 1024 * 1024);
  assert.deepEqual(error.details, [
    "aasx/files/liar.bin inflates to more than its declared 50000 bytes (a lying header)",
  ]);
  // A header that claims more than there is fails too, instead of padding with zeros.
  const short = lieAboutSize(zipSync({ "x.bin": new Uint8Array(1000) }), 2000);
  assert.match(readError(short).details[0], /x\.bin inflates to 1000 bytes, not the declared 2000/);
});

test("zip-slip entry names are refused, every one of them listed", () => {
  const evil = strToU8("evil");
  const error = readError(
    packageWith({ "../evil": evil, "/abs": evil, "a\\..\\b": evil, "C:/windows/x": evil, "ok/%2e%2e/x": evil }),
  );
  assert.deepEqual(error.details, [
    'entry "../evil": has a "." or ".." segment',
    'entry "/abs": is an absolute path',
    'entry "a\\..\\b": contains a backslash',
    'entry "C:/windows/x": starts with a drive letter',
    'entry "ok/%2e%2e/x": has a "." or ".." segment',
  ]);
  assert.match(error.message, /\(and 4 more problems\)$/);
});

test("a part name longer than a File's path may be (2000 characters) is refused, not taken to the file store", () => {
  const long = `aasx/${Array.from({ length: 25 }, () => "d".repeat(200)).join("/")}/f.txt`;
  const error = readError(packageWith({ [long]: strToU8("deep") }));
  assert.deepEqual(error.details, [`entry "${long}": is longer than 2000 characters`]);
});

test("too many entries, too large in total, and duplicate names are refused", () => {
  const many: Record<string, Uint8Array> = {};
  for (let index = 0; index < 20; index++) many[`aasx/files/f${index}.txt`] = strToU8(`file ${index}`);
  const crowded = packageWith(many);
  const error = readError(crowded, { ...DEFAULT_AASX_LIMITS, maxEntries: 10 });
  assert.match(error.details[0], /the package has 2\d entries, more than the limit of 10/);
  assert.equal(readAasx(crowded, { ...DEFAULT_AASX_LIMITS, maxEntries: 30 }).files.length, 0);

  const total = readError(crowded, { ...DEFAULT_AASX_LIMITS, maxTotalUncompressedBytes: 10_000 });
  assert.match(total.details.at(-1)!, /the entries declare \d+ bytes in total, more than the limit of 10000/);

  const duplicated = packageWith({ "aasx/files/A.txt": strToU8("a"), "aasx/files/a.txt": strToU8("b") });
  assert.match(
    readError(duplicated).details[0],
    /entry "aasx\/files\/a\.txt" appears twice \(also as "aasx\/files\/A\.txt"\)/,
  );
});

test("part names equivalent by percent-encoding are duplicates too (ISO/IEC 29500-2 §9.1.1)", () => {
  const spec = packageWith({ "aasx%2Faas%2Faas.aas.xml": strToU8("<environment/>") });
  assert.match(
    readError(spec).details.join("\n"),
    /entry "aasx%2Faas%2Faas\.aas\.xml" appears twice \(also as "aasx\/aas\/aas\.aas\.xml"\)/,
  );
  const file = packageWith({ "aasx/files/x.txt": strToU8("a"), "aasx/files/%78.TXT": strToU8("b") });
  assert.match(
    readError(file).details.join("\n"),
    /entry "aasx\/files\/%78\.TXT" appears twice \(also as "aasx\/files\/x\.txt"\)/,
  );
});

test("a truncated package is refused", () => {
  const bytes = writeAasx({
    environment: exampleEnvironment(),
    files: [{ path: "/f.bin", contentType: "x/y", bytes: new Uint8Array(5000) }],
  });
  const half = readError(bytes.subarray(0, bytes.length >> 1));
  assert.match(half.message, /truncated or not a zip archive/);
  // Only the tail cut: the end record is there but the directory is not.
  const directoryCut = bytes.slice();
  directoryCut.copyWithin(bytes.length - 22 - 40, bytes.length - 22);
  assert.match(readError(directoryCut.subarray(0, bytes.length - 40)).message, /central directory|truncated/);
  assert.match(readError(new Uint8Array(0)).message, /not a zip archive/);
  assert.match(readError(strToU8("<environment/>")).message, /not a zip archive/);
});

test("corrupt compressed data is refused (CRC-32 or deflate error), not returned", () => {
  const bytes = writeAasx({ environment: exampleEnvironment(), files: [] });
  const corrupt = bytes.slice();
  // Flip bytes in the middle of the spec part's compressed data.
  const specAt = findName(corrupt, "aasx/aas/aas.aas.xml");
  for (let offset = specAt + 200; offset < specAt + 210; offset++) corrupt[offset] ^= 0xff;
  assert.match(
    readError(corrupt).details[0],
    /aasx\/aas\/aas\.aas\.xml(: invalid compressed data| is corrupt \(CRC-32 mismatch\)| inflates to)/,
  );
});

function findName(bytes: Uint8Array, name: string): number {
  const needle = strToU8(name);
  // The first occurrence is the local header, followed by the data.
  outer: for (let offset = 0; offset < bytes.length - needle.length; offset++) {
    for (let index = 0; index < needle.length; index++) if (bytes[offset + index] !== needle[index]) continue outer;
    return offset + needle.length;
  }
  throw new Error(`${name} not found`);
}
