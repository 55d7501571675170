import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { writeAasXml, writeAasx } from "../../aas/index.ts";
import type { CommandError } from "../../contracts/index.ts";
import { MAX_LISTED_PROBLEMS } from "../import/import-problems.ts";
import { base64, fileTestEngine } from "./test-support/files.ts";

/** `{"conceptDescriptions":[{},{},…]}`: `n` identifiables in 3n bytes, each a problem. */
const emptyItems = (n: number) => `{"conceptDescriptions":[${Array.from({ length: n }, () => "{}").join(",")}]}`;

describe("ImportEnvironment of a tiny document with very many identifiables", () => {
  it("lists the first problems and counts the rest in one entry", async () => {
    const t = await fileTestEngine({ example: false });
    const { value } = await t.ok("ImportEnvironment", {
      mode: "partial",
      documents: [{ format: "json", text: emptyItems(MAX_LISTED_PROBLEMS + 1_500) }],
    });
    assert.equal(value.problems.length, MAX_LISTED_PROBLEMS + 1);
    assert.match(value.problems[0]!.text, /conceptDescriptions\[0\]: A ConceptDescription without a string id/);
    assert.match(value.problems[MAX_LISTED_PROBLEMS - 1]!.text, /conceptDescriptions\[999\]/);
    assert.equal(value.problems.at(-1)!.text, "1500 more problems not listed (only the first 1000 are)");
  });

  it("lets other work in while it reads one chunk of them", async () => {
    // 60,000 `{}` are 180 KB: one chunk of the reader, which used to be checked in one go.
    let immediateRan = false;
    let ranBy: number | undefined;
    const t = await fileTestEngine({
      example: false,
      importProgress: (done, _total, phase) => {
        if (phase !== "reading") return;
        if (done === 1) setImmediate(() => (immediateRan = true));
        if (ranBy === undefined && immediateRan) ranBy = done;
      },
    });
    await t.ok("ImportEnvironment", { mode: "partial", documents: [{ format: "json", text: emptyItems(60_000) }] });
    assert.ok(ranBy !== undefined && ranBy < 50_000, `the event loop had a turn only after item ${ranBy}`);
  });

  it("takes time linear in the number of identifiables", async () => {
    const time = async (n: number) => {
      const t = await fileTestEngine({ example: false });
      const text = emptyItems(n);
      const started = performance.now();
      await t.ok("ImportEnvironment", { mode: "partial", documents: [{ format: "json", text }] });
      return performance.now() - started;
    };
    await time(10_000); // warm up
    const small = await time(10_000);
    const large = await time(80_000);
    // 8 times the items: linear is ~8 times the time, the quadratic queue it had was ~60 times.
    assert.ok(large < 24 * small, `80,000 items took ${Math.round(large)} ms, 10,000 took ${Math.round(small)} ms`);
  });
});

describe("ImportEnvironment of an identifiable larger than core.importMaxIdentifiableSize", () => {
  const environment = (valueChars: number) => ({
    submodels: [
      {
        modelType: "Submodel",
        id: "urn:sm",
        submodelElements: [
          { modelType: "Property", idShort: "P", valueType: "xs:string", value: "v".repeat(valueChars) },
        ],
      },
    ],
  });
  const LIMIT = 10_000;
  const TOO_LONG =
    /submodels\[0\] is longer than 10000 characters, the most one identifiable may take in an import \(core\.importMaxIdentifiableSize\)/;

  it("refuses it with 413 naming the setting, in JSON, XML and an AASX spec part, whatever the mode", async () => {
    const t = await fileTestEngine({ example: false, maxIdentifiableChars: LIMIT });
    const big = environment(LIMIT);
    const documents = [
      { source: "big.json", format: "json" as const, text: JSON.stringify(big) },
      { source: "big.xml", format: "xml" as const, text: writeAasXml(big) },
      {
        source: "big.aasx",
        format: "aasx" as const,
        contentBase64: base64(writeAasx({ environment: big, files: [] })),
      },
    ];
    for (const document of documents)
      for (const mode of ["partial", "all-or-nothing"] as const) {
        const message = await t.fails(
          "ImportEnvironment",
          { mode, documents: [document] },
          "payload-too-large",
          TOO_LONG,
        );
        assert.ok(message.startsWith(`${document.source}: `), message);
      }
    assert.equal(t.events.length, 0);
    // Within the limit, the same model imports.
    await t.ok("ImportEnvironment", {
      mode: "all-or-nothing",
      documents: [{ format: "json", text: JSON.stringify(environment(LIMIT / 2)) }],
    });
  });

  it("a start-up model file (-m) with one is an error naming the file and the setting", async () => {
    const t = await fileTestEngine({ example: false, maxIdentifiableChars: LIMIT });
    const dir = mkdtempSync(join(tmpdir(), "twinport-import-"));
    try {
      const path = join(dir, "big-model.json");
      writeFileSync(path, JSON.stringify(environment(LIMIT)));
      await assert.rejects(
        t.engine.importModelFiles({
          files: [{ source: "big-model.json", format: "json", path }],
          mode: "all-or-nothing",
          validate: true,
        }),
        (error: CommandError) => {
          assert.equal(error.code, "payload-too-large");
          assert.match(error.message, /^big-model\.json: /);
          assert.match(error.message, TOO_LONG);
          return true;
        },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
