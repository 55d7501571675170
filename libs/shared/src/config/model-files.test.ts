import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { writeAasXml, writeAasx } from "../aas/index.ts";
import {
  createDirectStoreClient,
  createEngine,
  createMemoryFileStore,
  createMemoryRepository,
} from "../engine/index.ts";
import { loadModelFiles, ModelFileError, selectModelFiles } from "./index.ts";

const EXAMPLE_MODEL = new URL("../../../../examples/model.json", import.meta.url).pathname;
const example = JSON.parse(readFileSync(EXAMPLE_MODEL, "utf8"));
const shell = (id: string, idShort = "S") => ({
  id,
  idShort,
  modelType: "AssetAdministrationShell",
  assetInformation: { assetKind: "Instance", globalAssetId: `${id}/a` },
});

describe("selectModelFiles", () => {
  const dir = mkdtempSync(join(tmpdir(), "twinport-models-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string | Uint8Array = "{}") => writeFileSync(join(dir, name), text);
  const select = (overrides: Partial<Parameters<typeof selectModelFiles>[0]> = {}) =>
    selectModelFiles({ modelFiles: [], emptyModel: false, env: {}, cwd: dir, ...overrides }).map((model) => model.file);

  test("-m, else TWINPORT_MODEL, else initialModelFile, else model.* in the cwd", () => {
    write("a.json");
    write("b.json");
    write("model.json");
    assert.deepEqual(select({ modelFiles: ["a.json"], env: { TWINPORT_MODEL: "b.json" } }), ["a.json"]);
    assert.deepEqual(select({ env: { TWINPORT_MODEL: "a.json, b.json" }, initialModelFile: "b.json" }), [
      "a.json",
      "b.json",
    ]);
    assert.deepEqual(select({ initialModelFile: "b.json" }), ["b.json"]);
    assert.deepEqual(select(), ["model.json"]);
    assert.deepEqual(select({ emptyModel: true }), []);
    // Found and sniffed, not read: the file is read in chunks when it loads (docs/adr/0037).
    assert.deepEqual(selectModelFiles({ modelFiles: ["a.json"], emptyModel: false, env: {}, cwd: dir })[0], {
      file: "a.json",
      format: "json",
      path: join(dir, "a.json"),
    });
  });

  test("JSON, XML and AASX by extension, or by their first bytes", () => {
    const other = mkdtempSync(join(dir, "formats-"));
    writeFileSync(join(other, "m.XML"), "<environment/>");
    writeFileSync(join(other, "p.aasx"), Buffer.from("PK\u0003\u0004"));
    writeFileSync(join(other, "noext"), "\uFEFF  {}");
    writeFileSync(join(other, "zip.bin"), Buffer.from("PK\u0003\u0004"));
    const models = selectModelFiles({
      modelFiles: ["m.XML", "p.aasx", "noext", "zip.bin"],
      emptyModel: false,
      env: {},
      cwd: other,
    });
    assert.deepEqual(
      models.map((m) => m.format),
      ["xml", "aasx", "json", "aasx"],
    );
    assert.deepEqual(
      models.map((m) => m.path),
      ["m.XML", "p.aasx", "noext", "zip.bin"].map((name) => join(other, name)),
    );
    writeFileSync(join(other, "what.txt"), "hello");
    assert.throws(
      () => selectModelFiles({ modelFiles: ["what.txt"], emptyModel: false, env: {}, cwd: other }),
      /^ModelFileError: Model file 'what\.txt': cannot tell its format; use JSON \(\.json\), XML \(\.xml\) or AASX \(\.aasx\)\.$/,
    );
  });

  test("the default model.* may be XML or AASX; several or none usable is a clear error", () => {
    const xml = mkdtempSync(join(dir, "xml-"));
    writeFileSync(join(xml, "model.xml"), "<environment/>");
    writeFileSync(join(xml, "model.bak.txt"), "");
    // docs/deployment.md: beside a model of a known format, another model.* is ignored.
    writeFileSync(join(xml, "model.bak"), "not a model");
    assert.deepEqual(select({ cwd: xml }), ["model.xml"]);
    writeFileSync(join(xml, "model.aasx"), "PK");
    assert.throws(
      () => select({ cwd: xml }),
      /^ModelFileError: Found several default models \('model\.aasx', 'model\.xml'\)|^ModelFileError: Found several default models \('model\.xml', 'model\.aasx'\)/,
    );
    const txt = mkdtempSync(join(dir, "txt-"));
    writeFileSync(join(txt, "model.txt"), "");
    assert.throws(
      () => select({ cwd: txt }),
      /Found 'model\.txt' in .*, but a model is JSON \(\.json\), XML \(\.xml\) or AASX \(\.aasx\)\. Pass one with -m, or --empty-model\./,
    );
  });

  test("nothing to load when the cwd has no model.*; a missing file is a clear error", () => {
    const empty = mkdtempSync(join(dir, "empty-"));
    assert.deepEqual(select({ cwd: empty }), []);
    assert.throws(
      () => select({ modelFiles: ["missing.json"] }),
      (e: Error) => e instanceof ModelFileError && e.message === "Cannot read model file 'missing.json': no such file",
    );
  });
});

describe("loadModelFiles", () => {
  const exampleFile = { file: "examples/model.json", format: "json" as const, text: JSON.stringify(example) };
  const setup = () => {
    const files = createMemoryFileStore();
    const engine = createEngine({ repository: createMemoryRepository(), fileStore: files });
    return { engine, files, store: createDirectStoreClient(engine) };
  };

  test("loads into an empty store; with onlyIfEmpty a store holding data is kept as it is", async () => {
    const { store } = setup();
    const first = await loadModelFiles(store, [exampleFile], { validate: true, onlyIfEmpty: true });
    assert.deepEqual(first, {
      files: ["examples/model.json"],
      shells: 3,
      submodels: 6,
      conceptDescriptions: 2,
      // Every submodel element of examples/model.json, nested ones included.
      elements: 156,
      storedFiles: 0,
      skipped: false,
    });
    const again = await loadModelFiles(store, [exampleFile, exampleFile], { validate: true, onlyIfEmpty: true });
    assert.deepEqual(again, {
      files: [],
      shells: 0,
      submodels: 0,
      conceptDescriptions: 0,
      elements: 0,
      storedFiles: 0,
      skipped: true,
    });
    const shells = await store.execute({ type: "GetAllAssetAdministrationShells", params: {} });
    assert.ok(shells.ok && shells.value.items.length === 3);
  });

  test("XML and AASX files merge with JSON; the AASX files land in the file storage", async () => {
    const { store, files } = setup();
    const aasx = writeAasx({
      environment: { assetAdministrationShells: [shell("urn:aasx")] },
      files: [{ path: "/aasx/files/a.pdf", contentType: "application/pdf", bytes: new Uint8Array([1, 2]) }],
    });
    const loaded = await loadModelFiles(
      store,
      [
        exampleFile,
        {
          file: "b.xml",
          format: "xml",
          text: writeAasXml({ assetAdministrationShells: [shell("urn:xml"), example.assetAdministrationShells[0]] }),
        },
        { file: "c.aasx", format: "aasx", bytes: aasx },
      ],
      { validate: true, onlyIfEmpty: false },
    );
    assert.deepEqual(loaded, {
      files: ["examples/model.json", "b.xml", "c.aasx"],
      shells: 5,
      submodels: 6,
      conceptDescriptions: 2,
      elements: 156,
      storedFiles: 1,
      skipped: false,
    });
    assert.deepEqual(
      (await files.list("/")).map((f) => f.path),
      ["/aasx/files/a.pdf"],
    );
  });

  test("a conflicting id names both files, and nothing is loaded", async () => {
    const { store } = setup();
    const a = {
      file: "a.json",
      format: "json" as const,
      text: JSON.stringify({ assetAdministrationShells: [shell("urn:same", "A")] }),
    };
    const b = {
      file: "b.xml",
      format: "xml" as const,
      text: writeAasXml({ assetAdministrationShells: [shell("urn:same", "B")] }),
    };
    await assert.rejects(loadModelFiles(store, [a, b], { validate: true, onlyIfEmpty: false }), (error: Error) => {
      assert.ok(error instanceof ModelFileError);
      assert.equal(
        error.message,
        "Model file 'b.xml' could not be loaded: assetAdministrationShells[0] ('urn:same'): The id 'urn:same' is defined differently in a.json (assetAdministrationShells[0]) and in b.xml (assetAdministrationShells[0]); neither is imported",
      );
      return true;
    });
    const shells = await store.execute({ type: "GetAllAssetAdministrationShells", params: {} });
    assert.ok(shells.ok && shells.value.items.length === 0);
  });

  test("a model the engine refuses names the file and the reason: unknown properties, v2, broken syntax, validation", async () => {
    const { store } = setup();
    const broken = {
      file: "broken.json",
      format: "json" as const,
      text: JSON.stringify({ assetAdministrationShells: [{ ...shell("x"), bogus: 1 }] }),
    };
    await assert.rejects(
      loadModelFiles(store, [broken], { validate: true, onlyIfEmpty: false }),
      /^ModelFileError: Model file 'broken\.json' could not be loaded: .*bogus/,
    );
    const v2 = {
      file: "v2.json",
      format: "json" as const,
      text: JSON.stringify({ assetAdministrationShells: [], assets: [] }),
    };
    await assert.rejects(
      loadModelFiles(store, [v2], { validate: true, onlyIfEmpty: false }),
      /^ModelFileError: Model file 'v2\.json' could not be loaded: .*AAS v2\.0.*convert it to AAS v3\.0/,
    );
    const v2xml = {
      file: "v2.xml",
      format: "xml" as const,
      text: '<?xml version="1.0"?><aas:aasenv xmlns:aas="http://www.admin-shell.io/aas/2/0"/>',
    };
    await assert.rejects(
      loadModelFiles(store, [v2xml], { validate: true, onlyIfEmpty: false }),
      /^ModelFileError: Model file 'v2\.xml' could not be loaded: .*convert/i,
    );
    await assert.rejects(
      loadModelFiles(store, [{ file: "text.json", format: "json", text: "not json" }], {
        validate: true,
        onlyIfEmpty: false,
      }),
      /^ModelFileError: Model file 'text\.json' could not be loaded/,
    );
    const invalid = {
      file: "invalid.json",
      format: "json" as const,
      text: JSON.stringify({
        submodels: [
          {
            modelType: "Submodel",
            id: "urn:sm",
            submodelElements: [{ modelType: "Property", idShort: "p", valueType: "xs:int", value: "x" }],
          },
        ],
      }),
    };
    await assert.rejects(
      loadModelFiles(store, [invalid], { validate: true, onlyIfEmpty: false }),
      /^ModelFileError: Model file 'invalid\.json' could not be loaded: submodels\[0\] \('urn:sm'\): Invalid Submodel/,
    );
    assert.equal(
      (await loadModelFiles(store, [invalid], { validate: false, onlyIfEmpty: false })).submodels,
      1,
      "--no-validation loads it",
    );
  });
});
