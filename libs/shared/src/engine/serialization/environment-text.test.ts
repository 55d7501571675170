import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { unzipSync } from "fflate";
import { DEFAULT_AASX_LIMITS, readAasx, writeAasx, writeAasxStream } from "../../aas/index.ts";
import { writeAasXml } from "../../aas/xml/aas-xml-writer.ts";
import type { EnvironmentItems } from "./environment-items.ts";
import { environmentText, utf8Chunks } from "./environment-text.ts";

type Json = Record<string, unknown>;
const model = JSON.parse(readFileSync(new URL("../../../../../examples/model.json", import.meta.url), "utf8")) as {
  assetAdministrationShells: Json[];
  submodels: Json[];
  conceptDescriptions: Json[];
};

async function* each(items: readonly Json[] = []): AsyncIterable<Json> {
  yield* items;
}

function itemsOf(environment: Partial<typeof model>): EnvironmentItems {
  return {
    shells: each(environment.assetAdministrationShells),
    submodels: each(environment.submodels),
    conceptDescriptions: each(environment.conceptDescriptions),
  };
}

async function text(environment: Partial<typeof model>, format: "json" | "xml"): Promise<string> {
  let all = "";
  for await (const piece of environmentText(itemsOf(environment), format)) all += piece;
  return all;
}

async function bytes(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const all: Uint8Array[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return Buffer.concat(all);
}

describe("environment text written item by item", () => {
  // Every combination of present and absent lists: Part 1 wants no empty list written.
  const variants: [string, Partial<typeof model>][] = [
    ["the whole example", model],
    ["nothing", {}],
    ["submodels only", { submodels: model.submodels }],
    [
      "shells and concept descriptions",
      { assetAdministrationShells: model.assetAdministrationShells, conceptDescriptions: model.conceptDescriptions },
    ],
  ];
  for (const [name, environment] of variants) {
    it(`${name}: the same JSON as JSON.stringify of the whole`, async () => {
      assert.equal(await text(environment, "json"), JSON.stringify(environment));
    });
    it(`${name}: the same XML as writeAasXml of the whole`, async () => {
      assert.equal(await text(environment, "xml"), writeAasXml(environment));
    });
  }

  it("UTF-8 chunks cut anywhere decode to the same text (multi-byte characters included)", async () => {
    const pieces = ["äöü€", "x".repeat(10), "𝄞 clef", "end"];
    const source = async function* () {
      yield* pieces;
    };
    const out = await bytes(utf8Chunks(source(), 3));
    assert.equal(out.toString("utf8"), pieces.join(""));
  });

  it("a streamed AASX package holds what writeAasx's holds", async () => {
    const file = { path: "/aasx/files/manual.pdf", contentType: "application/pdf", bytes: new Uint8Array([1, 2, 3]) };
    const wholeBytes = writeAasx({ environment: model, files: [file], thumbnail: file });
    const whole = readAasx(wholeBytes, DEFAULT_AASX_LIMITS);
    const xml = async function* () {
      for await (const piece of environmentText(itemsOf(model), "xml")) yield Buffer.from(piece, "utf8");
    };
    const lazy = { path: file.path, contentType: file.contentType, bytes: async () => file.bytes };
    const streamedBytes = await bytes(writeAasxStream({ environmentXml: xml(), files: [lazy], thumbnail: lazy }));
    const streamed = readAasx(streamedBytes, DEFAULT_AASX_LIMITS);
    assert.deepEqual(streamed, whole);
    // The same ZIP item names: the content types stream is literally "[Content_Types].xml" (it is
    // not a part, so its name is never percent-encoded; OPC readers look for exactly that name).
    const names = (zip: Uint8Array) => Object.keys(unzipSync(zip)).sort();
    assert.deepEqual(names(streamedBytes), names(wholeBytes));
    assert.ok(names(streamedBytes).includes("[Content_Types].xml"), names(streamedBytes).join(", "));
  });
});
