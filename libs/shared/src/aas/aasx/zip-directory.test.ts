import assert from "node:assert/strict";
import { test } from "node:test";
import { strToU8, zipSync } from "fflate";
import { exampleEnvironment } from "../test-support/fixtures.ts";
import { DEFAULT_AASX_LIMITS } from "./aasx-limits.ts";
import { readAasx } from "./aasx-reader.ts";
import { writeAasx } from "./aasx-writer.ts";
import { readZipDirectory } from "./zip-directory.ts";
import { readEntryData } from "./zip-entry-data.ts";

/**
 * Rewrites a zip into its ZIP64 form, as writers do for large archives: every directory record
 * moves its sizes and offset into a ZIP64 extra field, and a ZIP64 end record plus locator
 * precede the classic end record, whose fields become 0xFFFF… placeholders.
 */
function toZip64(bytes: Uint8Array): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.length - 22;
  const count = view.getUint16(end + 10, true);
  const directoryOffset = view.getUint32(end + 16, true);
  const records: Uint8Array[] = [];
  let offset = directoryOffset;
  for (let index = 0; index < count; index++) {
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const record = new Uint8Array(46 + nameLength + 28);
    record.set(bytes.subarray(offset, offset + 46 + nameLength));
    const out = new DataView(record.buffer);
    const uncompressed = view.getUint32(offset + 24, true);
    const compressed = view.getUint32(offset + 20, true);
    const local = view.getUint32(offset + 42, true);
    out.setUint32(20, 0xffffffff, true);
    out.setUint32(24, 0xffffffff, true);
    out.setUint32(42, 0xffffffff, true);
    out.setUint16(30, 28, true);
    out.setUint16(32, 0, true);
    const extra = 46 + nameLength;
    out.setUint16(extra, 0x0001, true);
    out.setUint16(extra + 2, 24, true);
    out.setBigUint64(extra + 4, BigInt(uncompressed), true);
    out.setBigUint64(extra + 12, BigInt(compressed), true);
    out.setBigUint64(extra + 20, BigInt(local), true);
    records.push(record);
    offset += 46 + nameLength + extraLength + commentLength;
  }
  const directorySize = records.reduce((total, record) => total + record.length, 0);
  const zip64End = directoryOffset + directorySize;
  const tail = new Uint8Array(56 + 20 + 22);
  const t = new DataView(tail.buffer);
  t.setUint32(0, 0x06064b50, true);
  t.setBigUint64(4, 44n, true);
  t.setUint16(12, 45, true);
  t.setUint16(14, 45, true);
  t.setBigUint64(24, BigInt(count), true);
  t.setBigUint64(32, BigInt(count), true);
  t.setBigUint64(40, BigInt(directorySize), true);
  t.setBigUint64(48, BigInt(directoryOffset), true);
  t.setUint32(56, 0x07064b50, true);
  t.setBigUint64(64, BigInt(zip64End), true);
  t.setUint32(72, 1, true);
  t.setUint32(76, 0x06054b50, true);
  t.setUint16(86, 0xffff, true);
  t.setUint16(84, 0xffff, true);
  t.setUint32(88, 0xffffffff, true);
  t.setUint32(92, 0xffffffff, true);
  const result = new Uint8Array(directoryOffset + directorySize + tail.length);
  result.set(bytes.subarray(0, directoryOffset));
  let at = directoryOffset;
  for (const record of records) {
    result.set(record, at);
    at += record.length;
  }
  result.set(tail, at);
  return result;
}

test("entries are listed from the central directory with their declared sizes", () => {
  const data = strToU8("hello, ".repeat(100));
  const zip = zipSync({ "a/b.txt": data, "stored.bin": [new Uint8Array([1, 2, 3]), { level: 0 }] });
  const { entries, declaredCount } = readZipDirectory(zip);
  assert.equal(declaredCount, 2);
  assert.deepEqual(
    entries.map(({ name, method, uncompressedSize }) => [name, method, uncompressedSize]),
    [
      ["a/b.txt", 8, 700],
      ["stored.bin", 0, 3],
    ],
  );
  assert.ok(entries[0].compressedSize < 100);
  assert.deepEqual(readEntryData(zip, entries[0]), data);
  assert.deepEqual(readEntryData(zip, entries[1]), new Uint8Array([1, 2, 3]));
});

test("ZIP64 archives are read through the ZIP64 end record and extra fields", () => {
  const files = [
    {
      path: "/aasx/files/a.bin",
      contentType: "application/octet-stream",
      bytes: Uint8Array.from({ length: 3000 }, (_, i) => i % 251),
    },
  ];
  const classic = writeAasx({ environment: exampleEnvironment(), files });
  const zip64 = toZip64(classic);
  assert.notDeepEqual(zip64, classic);
  assert.deepEqual(
    readZipDirectory(zip64).entries.map((entry) => [
      entry.name,
      entry.compressedSize,
      entry.uncompressedSize,
      entry.localHeaderOffset,
    ]),
    readZipDirectory(classic).entries.map((entry) => [
      entry.name,
      entry.compressedSize,
      entry.uncompressedSize,
      entry.localHeaderOffset,
    ]),
  );
  const content = readAasx(zip64, DEFAULT_AASX_LIMITS);
  assert.deepEqual(content.environment, exampleEnvironment());
  assert.deepEqual(content.files, files);
});

test("an entry whose content does not match its CRC-32 is refused (node:zlib's crc32)", () => {
  // Stored, so the content sits in the archive as is and one flipped byte keeps the size right.
  const zip = zipSync({ "stored.txt": [strToU8("123456789"), { level: 0 }] });
  const [entry] = readZipDirectory(zip).entries;
  // 0xcbf43926 is CRC-32's standard check value, for "123456789".
  assert.equal(entry.crc32, 0xcbf43926);
  assert.deepEqual(readEntryData(zip, entry), strToU8("123456789"));
  const corrupt = zip.slice();
  const at = Buffer.from(corrupt).indexOf("123456789");
  corrupt[at] ^= 0x01;
  assert.throws(() => readEntryData(corrupt, entry), /stored\.txt is corrupt \(CRC-32 mismatch\)/);
});
