import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { strToU8, unzipSync, zipSync } from "fflate";
import { writeAasXml, writeAasx } from "../../aas/index.ts";
import { EXAMPLE_MODEL_TEXT, exampleModel } from "../../test-support/example-model.ts";
import { base64, fileTestEngine } from "./test-support/files.ts";

const model = exampleModel();
const shell = (id: string, idShort = "S") => ({
  id,
  idShort,
  modelType: "AssetAdministrationShell",
  assetInformation: { assetKind: "Instance", globalAssetId: `${id}/asset` },
});

describe("ImportEnvironment", () => {
  it("reads JSON, XML and AASX (its files into the FileStore) and merges several documents", async () => {
    const t = await fileTestEngine({ example: false });
    const xml = writeAasXml({ assetAdministrationShells: [shell("urn:xml")] });
    const aasx = writeAasx({
      environment: {
        submodels: [
          {
            modelType: "Submodel",
            id: "urn:sm",
            submodelElements: [
              { modelType: "File", idShort: "Doc", contentType: "application/pdf", value: "/aasx/files/Doc.pdf" },
            ],
          },
        ],
      },
      files: [{ path: "/aasx/files/Doc.pdf", contentType: "application/pdf", bytes: strToU8("%PDF") }],
      thumbnail: { path: "/aasx/thumb.png", contentType: "image/png", bytes: strToU8("PNG") },
    });
    const { value } = await t.ok("ImportEnvironment", {
      mode: "all-or-nothing",
      documents: [
        { source: "a.json", format: "json", text: JSON.stringify({ assetAdministrationShells: [shell("urn:json")] }) },
        { source: "b.xml", format: "xml", text: xml },
        { source: "c.aasx", format: "aasx", contentBase64: base64(aasx) },
      ],
    });
    assert.deepEqual(value, {
      shells: 2,
      submodels: 1,
      conceptDescriptions: 0,
      elements: 1,
      files: 2,
      skipped: false,
      problems: [],
    });
    assert.deepEqual(
      (await t.files.list("/")).map((f) => f.path),
      ["/aasx/files/doc.pdf", "/aasx/thumb.png"],
    );
    const file = (await t.ok("GetFileByPath", { submodelId: "urn:sm", idShortPath: "Doc" })).value;
    assert.equal(
      Buffer.from(file.contentBase64, "base64").toString(),
      "%PDF",
      "a File finds its part whatever the case of its path",
    );
    assert.deepEqual(
      t.events.map((e) => e.kind),
      ["shell.created", "shell.created", "submodel.created"],
    );
  });

  it("the same identifiable twice collapses; the same id with other content names both documents", async () => {
    const t = await fileTestEngine({ example: false });
    const same = JSON.stringify({ assetAdministrationShells: [shell("urn:a")] });
    assert.equal(
      (
        await t.ok("ImportEnvironment", {
          mode: "all-or-nothing",
          documents: [
            { source: "x.json", format: "json", text: same },
            { source: "y.xml", format: "xml", text: writeAasXml(JSON.parse(same)) },
          ],
        })
      ).value.shells,
      1,
    );
    const t2 = await fileTestEngine({ example: false });
    const message = await t2.fails(
      "ImportEnvironment",
      {
        mode: "all-or-nothing",
        documents: [
          { source: "one.json", format: "json", text: same },
          {
            source: "two.json",
            format: "json",
            text: JSON.stringify({ assetAdministrationShells: [shell("urn:a", "Other")] }),
          },
        ],
      },
      "conflict",
    );
    assert.match(
      message,
      /'urn:a' is defined differently in one\.json \(assetAdministrationShells\[0\]\) and in two\.json \(assetAdministrationShells\[0\]\)/,
    );
    assert.equal(t2.events.length, 0, "all-or-nothing: nothing was written");
  });

  it("refuses v2 and release-candidate models with 'convert', unknown properties, and unreadable documents", async () => {
    const t = await fileTestEngine({ example: false });
    const v2 = {
      assetAdministrationShells: [
        { identification: { id: "urn:x", idType: "IRI" }, modelType: { name: "AssetAdministrationShell" } },
      ],
      assets: [],
    };
    await t.fails(
      "ImportEnvironment",
      { mode: "partial", documents: [{ source: "old.json", format: "json", text: JSON.stringify(v2) }] },
      "bad-request",
      /^old\.json: .*AAS v2\.0.*convert it to AAS v3\.0/,
    );
    await t.fails(
      "ImportEnvironment",
      {
        mode: "all-or-nothing",
        documents: [
          {
            format: "json",
            text: JSON.stringify({ assetAdministrationShells: [{ ...shell("urn:x"), colour: "red" }] }),
          },
        ],
      },
      "bad-request",
      /colour/,
    );
    await t.fails(
      "ImportEnvironment",
      { mode: "partial", documents: [{ format: "json", text: JSON.stringify({ shells: [] }) }] },
      "bad-request",
      /unknown property 'shells'/,
    );
    await t.fails(
      "ImportEnvironment",
      { mode: "partial", documents: [{ format: "json", text: "{ not json" }] },
      "bad-request",
    );
    await t.fails(
      "ImportEnvironment",
      {
        mode: "partial",
        documents: [
          {
            format: "xml",
            text: '<?xml version="1.0"?><!DOCTYPE e [<!ENTITY x SYSTEM "file:///etc/passwd">]><environment xmlns="https://admin-shell.io/aas/3/0">&x;</environment>',
          },
        ],
      },
      "bad-request",
    );
    await t.fails(
      "ImportEnvironment",
      { mode: "partial", documents: [{ format: "aasx", contentBase64: base64("not a zip") }] },
      "bad-request",
      /AASX/,
    );
    assert.equal(t.events.length, 0);
  });

  it("a partial import reports what fails and imports the rest, identifiable by identifiable", async () => {
    const t = await fileTestEngine();
    const invalid = {
      modelType: "Submodel",
      id: "urn:bad",
      submodelElements: [{ modelType: "Property", idShort: "p", valueType: "xs:int", value: "not a number" }],
    };
    const good = { modelType: "Submodel", id: "urn:good" };
    const taken = model.assetAdministrationShells[0];
    const { value } = await t.ok("ImportEnvironment", {
      mode: "partial",
      documents: [
        {
          source: "upload",
          format: "json",
          text: JSON.stringify({ assetAdministrationShells: [taken], submodels: [invalid, good] }),
        },
      ],
    });
    assert.equal(value.submodels, 1);
    assert.equal(value.shells, 0);
    assert.deepEqual(
      value.problems.map((p) => [p.code, p.modelType, p.id]),
      [
        ["validation", "Submodel", "urn:bad"],
        ["conflict", "AssetAdministrationShell", taken.id],
      ],
    );
    assert.match(value.problems[0]!.text, /^upload, submodels\[0\] \('urn:bad'\): /);
    assert.ok(value.problems[0]!.details!.length >= 1);
    assert.ok((await t.run("GetSubmodelById", { submodelId: "urn:good" })).ok);
    assert.equal((await t.run("GetSubmodelById", { submodelId: "urn:bad" })).ok, false);
  });

  it("without validation an invalid value loads; onlyIfEmpty skips a store that holds data", async () => {
    const t = await fileTestEngine({ example: false });
    const invalid = {
      submodels: [
        {
          modelType: "Submodel",
          id: "urn:bad",
          submodelElements: [{ modelType: "Property", idShort: "p", valueType: "xs:int", value: "x" }],
        },
      ],
    };
    await t.ok("ImportEnvironment", {
      mode: "all-or-nothing",
      validate: false,
      documents: [{ format: "json", text: JSON.stringify(invalid) }],
    });
    const again = await t.ok("ImportEnvironment", {
      mode: "all-or-nothing",
      onlyIfEmpty: true,
      documents: [{ format: "json", text: EXAMPLE_MODEL_TEXT }],
    });
    assert.equal(again.value.skipped, true);
    assert.equal(again.value.shells, 0);
  });

  it("hostile packages are refused with the reason and leave nothing behind", async () => {
    const t = await fileTestEngine({ example: false });
    const bomb = zipSync(
      { "[Content_Types].xml": strToU8("<Types/>"), "big.bin": new Uint8Array(50 * 1024 * 1024) },
      { level: 9 },
    );
    await t.fails(
      "ImportEnvironment",
      { mode: "partial", documents: [{ source: "bomb.aasx", format: "aasx", contentBase64: base64(bomb) }] },
      "bad-request",
      /^bomb\.aasx: .*(ratio|inflate)/i,
    );
    const slip = zipSync({ "[Content_Types].xml": strToU8("<Types/>"), "../../evil.txt": strToU8("x") });
    await t.fails(
      "ImportEnvironment",
      { mode: "partial", documents: [{ format: "aasx", contentBase64: base64(slip) }] },
      "bad-request",
      /\.\./,
    );
    const good = writeAasx({ environment: { assetAdministrationShells: [shell("urn:x")] }, files: [] });
    await t.fails(
      "ImportEnvironment",
      { mode: "partial", documents: [{ format: "aasx", contentBase64: base64(good.subarray(0, good.length - 30)) }] },
      "bad-request",
    );
    assert.deepEqual(await t.files.list(), []);
    assert.equal(t.events.length, 0);
  });

  it("a spec part that is a bomb is streamed, not held: it fails at its first character (ADR 0037)", async () => {
    const t = await fileTestEngine({ example: false });
    // A well-formed package whose spec part is 256 MiB of zeros (deflated to ~256 KiB, 1,000×):
    // past every size and ratio limit, but streamed, so it only costs reading up to the first byte.
    const parts = unzipSync(writeAasx({ environment: { assetAdministrationShells: [shell("urn:x")] }, files: [] }));
    const specName = Object.keys(parts).find((name) => name.startsWith("aasx/") && name.endsWith(".xml"))!;
    parts[specName] = new Uint8Array(256 * 1024 * 1024);
    const bomb = zipSync(parts, { level: 9 });
    const before = process.memoryUsage().rss;
    await t.fails(
      "ImportEnvironment",
      { mode: "all-or-nothing", documents: [{ source: "bomb.aasx", format: "aasx", contentBase64: base64(bomb) }] },
      "bad-request",
      new RegExp(`^bomb\\.aasx: /${specName.replaceAll(".", "\\.")}: Invalid XML`),
    );
    assert.ok(process.memoryUsage().rss - before < 128 * 1024 * 1024, "the spec part was not inflated whole");
    assert.equal(t.events.length, 0);
  });

  it("a spec part larger than core.aasxMaxModelSize is refused before anything is inflated", async () => {
    const parts = unzipSync(writeAasx({ environment: { assetAdministrationShells: [shell("urn:x")] }, files: [] }));
    const specName = Object.keys(parts).find((name) => name.startsWith("aasx/") && name.endsWith(".xml"))!;
    const pkg = base64(zipSync(parts));
    const specSize = parts[specName]!.length;
    const small = await fileTestEngine({ example: false, maxModelPartBytes: specSize - 1 });
    await small.fails(
      "ImportEnvironment",
      { mode: "all-or-nothing", documents: [{ source: "big.aasx", format: "aasx", contentBase64: pkg }] },
      "bad-request",
      /^big\.aasx: .*\(the model\) declares \d+ bytes, more than the limit of \d+ \(core\.aasxMaxModelSize\)/,
    );
    assert.equal(small.events.length, 0);
    const fits = await fileTestEngine({ example: false, maxModelPartBytes: specSize });
    await fits.ok("ImportEnvironment", {
      mode: "all-or-nothing",
      documents: [{ source: "big.aasx", format: "aasx", contentBase64: pkg }],
    });
  });
});
