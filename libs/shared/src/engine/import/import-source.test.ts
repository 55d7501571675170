import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { sourceOfDocument, sourceOfFile } from "./import-source.ts";

const XML = `<?xml version="1.0" encoding="utf-16"?><environment xmlns="https://admin-shell.io/aas/3/0"><conceptDescriptions><conceptDescription><id>urn:x:ä€𝄞</id></conceptDescription></conceptDescriptions></environment>`;

/** UTF-16 with its byte order mark, as Windows tools save XML. */
function utf16(text: string, endian: "le" | "be"): Buffer {
  const le = Buffer.from(`\ufeff${text}`, "utf16le");
  if (endian === "le") return le;
  const be = Buffer.from(le);
  for (let i = 0; i < be.length; i += 2) [be[i], be[i + 1]] = [le[i + 1]!, le[i]!];
  return be;
}

async function textOf(chunks: (() => AsyncIterable<string>) | undefined): Promise<string> {
  assert.ok(chunks, "a text source");
  let text = "";
  for await (const chunk of chunks()) text += chunk;
  return text;
}

test("an XML document in UTF-16 with its byte order mark is read, from a request and from a model file (XML 1.0 §4.3.3)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "twinport-utf16-"));
  try {
    for (const endian of ["le", "be"] as const) {
      const bytes = utf16(XML, endian);
      const fromRequest = sourceOfDocument(
        { source: "x.xml", format: "xml", contentBase64: bytes.toString("base64") },
        "x.xml",
      );
      assert.equal(await textOf(fromRequest.chunks), XML, endian);
      const file = join(dir, `model-${endian}.xml`);
      writeFileSync(file, bytes);
      const fromFile = sourceOfFile(file, "xml", file);
      assert.equal(await textOf(fromFile.chunks), XML, endian);
    }
    // JSON stays UTF-8 only (RFC 8259 §8.1).
    const json = sourceOfDocument(
      { source: "x.json", format: "json", contentBase64: utf16("{}", "le").toString("base64") },
      "x.json",
    );
    await assert.rejects(textOf(json.chunks), /not UTF-8 text/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a model file's multi-byte characters split across chunks come out whole", async () => {
  const dir = mkdtempSync(join(tmpdir(), "twinport-utf8-"));
  try {
    const text = `{"conceptDescriptions":[{"id":"${"€".repeat(200_000)}"}]}`;
    const file = join(dir, "model.json");
    writeFileSync(file, text);
    const source = sourceOfFile(file, "json", file);
    assert.equal(await textOf(source.chunks), text);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
