import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { createDirectStoreClient, createEngine, createMemoryRepository } from "../engine/index.ts";
import { HELP_TEXT, loadModelFiles, ModelFileError, parseCommandLine, roleOf, selectModelFiles, UsageError } from "./index.ts";

const EXAMPLE_MODEL = new URL("../../../../examples/model.json", import.meta.url).pathname;

describe("parseCommandLine", () => {
  test("no arguments: embedded defaults", () => {
    assert.deepEqual(parseCommandLine([]), {
      role: undefined,
      help: false,
      configFile: undefined,
      modelFiles: [],
      emptyModel: false,
      noValidation: false,
      endpointKinds: [],
      overrides: [],
    });
  });

  test("every option, a role and overrides", () => {
    assert.deepEqual(
      parseCommandLine(["model-store", "-c", "c.json", "-m", "a.json", "--model", "b.json", "--no-validation", "--endpoint", "http", "--endpoint=OPCUA,http", "endpoints[0].port=8081", "core.stateDir=/x"]),
      {
        role: "model-store",
        help: false,
        configFile: "c.json",
        modelFiles: ["a.json", "b.json"],
        emptyModel: false,
        noValidation: true,
        endpointKinds: ["http", "opcua"],
        overrides: ["endpoints[0].port=8081", "core.stateDir=/x"],
      },
    );
    assert.equal(parseCommandLine(["--config=c.json", "--help"]).help, true);
    assert.equal(parseCommandLine(["-h"]).help, true);
    assert.equal(parseCommandLine(["-c", "x.json", "http-gateway"]).role, "http-gateway");
  });

  test("usage errors say what is wrong", () => {
    const cases: [string[], RegExp][] = [
      [["--bogus"], /^Unknown option '--bogus'\. Run 'twinport --help' for the options\.$/],
      [["-x"], /^Unknown option '-x'/],
      [["-c"], /^Option '-c, --config' needs a value\.$/],
      [["--endpoint", "mqtt"], /^Unknown endpoint kind 'mqtt' for --endpoint\. Allowed: http, opcua\.$/],
      [["serve"], /^Unknown command or argument 'serve'\. Commands: embedded, model-store, http-gateway, opcua-gateway; overrides look like path=value\.$/],
      [["endpoints[0].port=1", "http-gateway"], /^The command 'http-gateway' must come first\.$/],
      [["--empty-model", "-m", "a.json"], /^--empty-model and -m\/--model exclude each other\.$/],
    ];
    for (const [argv, message] of cases) {
      assert.throws(() => parseCommandLine(argv), (error: Error) => error instanceof UsageError && message.test(error.message), argv.join(" "));
    }
  });

  test("roleOf picks the command, or embedded", () => {
    assert.equal(roleOf(["opcua-gateway", "-c", "x"]), "opcua-gateway");
    assert.equal(roleOf(["-c", "x", "endpoints[0].port=1"]), "embedded");
    assert.equal(roleOf(["--bogus", "http-gateway"]), "embedded");
  });

  test("the help lists every command, option and environment variable", () => {
    for (const word of ["model-store", "http-gateway", "opcua-gateway", "embedded", "--config", "--model", "--empty-model", "--no-validation", "--endpoint", "--help", "path=value", "TWINPORT_CONFIG", "TWINPORT_MODEL", "TWINPORT_<PATH>"]) {
      assert.ok(HELP_TEXT.includes(word), word);
    }
  });
});

describe("selectModelFiles", () => {
  const dir = mkdtempSync(join(tmpdir(), "twinport-models-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text = "{}") => writeFileSync(join(dir, name), text);
  const select = (overrides: Partial<Parameters<typeof selectModelFiles>[0]> = {}) =>
    selectModelFiles({ modelFiles: [], emptyModel: false, env: {}, cwd: dir, ...overrides }).map((model) => model.file);

  test("-m, else TWINPORT_MODEL, else initialModelFile, else model.json in the cwd", () => {
    write("a.json");
    write("b.json");
    write("model.json");
    assert.deepEqual(select({ modelFiles: ["a.json"], env: { TWINPORT_MODEL: "b.json" } }), ["a.json"]);
    assert.deepEqual(select({ env: { TWINPORT_MODEL: "a.json, b.json" }, initialModelFile: "b.json" }), ["a.json", "b.json"]);
    assert.deepEqual(select({ initialModelFile: "b.json" }), ["b.json"]);
    assert.deepEqual(select(), ["model.json"]);
    assert.deepEqual(select({ emptyModel: true }), []);
    assert.equal(selectModelFiles({ modelFiles: ["a.json"], emptyModel: false, env: {}, cwd: dir })[0]!.text, "{}");
  });

  test("nothing to load when the cwd has no model.*", () => {
    const empty = mkdtempSync(join(dir, "empty-"));
    assert.deepEqual(select({ cwd: empty }), []);
  });

  test("unusable files are clear errors", () => {
    assert.throws(() => select({ modelFiles: ["missing.json"] }), (e: Error) => e instanceof ModelFileError && e.message === "Cannot read model file 'missing.json': no such file");
    assert.throws(() => select({ modelFiles: ["env.aasx"] }), /^ModelFileError: Model file 'env\.aasx': only JSON models \(\.json\) are supported for now\.$/);
    const other = mkdtempSync(join(dir, "aasx-"));
    writeFileSync(join(other, "model.aasx"), "");
    assert.throws(() => select({ cwd: other }), /Found 'model\.aasx' in .*, but only JSON models are supported for now\. Pass a JSON model with -m, or --empty-model\./);
  });
});

describe("loadModelFiles", () => {
  const example = { file: "examples/model.json", text: selectModelFiles({ modelFiles: [EXAMPLE_MODEL], emptyModel: false, env: {}, cwd: "/" })[0]!.text };

  test("loads into an empty store; with onlyIfEmpty a store holding data is kept as it is", async () => {
    const engine = createEngine({ repository: createMemoryRepository() });
    const store = createDirectStoreClient(engine);
    const first = await loadModelFiles(store, [example], { validate: true, onlyIfEmpty: true });
    assert.deepEqual(first, { files: ["examples/model.json"], shells: 3, submodels: 6, conceptDescriptions: 2, skipped: false });
    const again = await loadModelFiles(store, [example, example], { validate: true, onlyIfEmpty: true });
    assert.deepEqual(again, { files: [], shells: 0, submodels: 0, conceptDescriptions: 0, skipped: true });
    const shells = await store.execute({ type: "GetAllAssetAdministrationShells", params: {} });
    assert.ok(shells.ok && shells.value.items.length === 3);
    await engine.close();
  });

  test("a model the engine refuses names the file and the reason", async () => {
    const engine = createEngine({ repository: createMemoryRepository() });
    const broken = { file: "broken.json", text: '{"assetAdministrationShells": [{"modelType": "AssetAdministrationShell", "id": "x", "assetInformation": {"assetKind": "Instance"}, "bogus": 1}]}' };
    await assert.rejects(loadModelFiles(engine, [broken], { validate: true, onlyIfEmpty: false }), (error: Error) => {
      assert.ok(error instanceof ModelFileError);
      assert.match(error.message, /^Model file 'broken\.json' could not be loaded/);
      assert.match(error.message, /bogus/);
      return true;
    });
    await assert.rejects(loadModelFiles(engine, [{ file: "text.json", text: "not json" }], { validate: true, onlyIfEmpty: false }), /^ModelFileError: Model file 'text\.json' could not be loaded/);
    await engine.close();
  });
});
