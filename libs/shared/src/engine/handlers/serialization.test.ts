import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_AASX_LIMITS, parseAasXml, readAasx } from "../../aas/index.ts";
import { exampleModel } from "../../test-support/example-model.ts";
import { type FileTestEngine, fileTestEngine, fromBase64 } from "./test-support/files.ts";

const model = exampleModel();

async function withFiles(t: FileTestEngine): Promise<void> {
  await t.files.put("/aasx/files/manual.txt", { contentType: "text/plain", bytes: Buffer.from("the manual") });
  await t.files.put("/aasx/thumbnail.png", { contentType: "image/png", bytes: Buffer.from([137, 80, 78, 71]) });
}

async function environmentOf(t: FileTestEngine): Promise<Record<string, unknown>> {
  const reply = await t.ok("GenerateSerializationByIds", { format: "json" });
  return JSON.parse(fromBase64(reply.value.contentBase64).toString("utf8"));
}

describe("GenerateSerializationByIds", () => {
  it("without ids: the whole repository, identical in JSON and XML", async () => {
    const t = await fileTestEngine();
    const json = (await t.ok("GenerateSerializationByIds", { format: "json" })).value;
    assert.equal(json.contentType, "application/json");
    assert.deepEqual(JSON.parse(fromBase64(json.contentBase64).toString()), model);
    const xml = (await t.ok("GenerateSerializationByIds", { format: "xml" })).value;
    assert.equal(xml.contentType, "application/xml");
    assert.deepEqual(parseAasXml(fromBase64(xml.contentBase64).toString()), model);
    const noCds = JSON.parse(
      fromBase64(
        (await t.ok("GenerateSerializationByIds", { format: "json", includeConceptDescriptions: false })).value
          .contentBase64,
      ).toString(),
    );
    assert.equal(noCds.conceptDescriptions, undefined, "no empty lists in the Environment");
  });

  it("with ids: exactly those, plus the concept descriptions they reference", async () => {
    const t = await fileTestEngine();
    const submodel = model.submodels[0];
    const reply = await t.ok("GenerateSerializationByIds", {
      format: "json",
      aasIds: [model.assetAdministrationShells[1].id],
      submodelIds: [submodel.id, submodel.id],
    });
    const environment = JSON.parse(fromBase64(reply.value.contentBase64).toString());
    assert.deepEqual(environment.assetAdministrationShells, [model.assetAdministrationShells[1]]);
    assert.deepEqual(environment.submodels, [submodel]);
    const referenced = model.conceptDescriptions.filter(
      (cd) =>
        JSON.stringify(submodel).includes(JSON.stringify(cd.id)) ||
        JSON.stringify(model.assetAdministrationShells[1]).includes(JSON.stringify(cd.id)),
    );
    assert.ok(referenced.length > 0, "the example references concept descriptions");
    assert.deepEqual(environment.conceptDescriptions, referenced);
    await t.fails("GenerateSerializationByIds", { format: "json", aasIds: ["urn:unknown"] }, "not-found");
  });

  it("AASX carries the files the model points to; importing it into an empty store gives the same model and bytes", async () => {
    const source = await fileTestEngine();
    await withFiles(source);
    const aasx = (await source.ok("GenerateSerializationByIds", { format: "aasx" })).value;
    assert.equal(aasx.contentType, "application/asset-administration-shell-package+xml");
    const content = readAasx(fromBase64(aasx.contentBase64), DEFAULT_AASX_LIMITS);
    assert.deepEqual(content.files.map((f) => f.path).sort(), ["/aasx/files/manual.txt", "/aasx/thumbnail.png"]);
    assert.equal(content.thumbnail?.path, "/aasx/thumbnail.png");

    const target = await fileTestEngine({ example: false });
    await target.ok("ImportEnvironment", {
      mode: "all-or-nothing",
      documents: [{ format: "aasx", contentBase64: aasx.contentBase64 }],
    });
    assert.deepEqual(await environmentOf(target), await environmentOf(source));
    const manual = (await target.ok("GetFileByPath", { submodelId: model.submodels[0].id, idShortPath: "Manual" }))
      .value;
    assert.equal(fromBase64(manual.contentBase64).toString(), "the manual");
    assert.deepEqual(
      [
        ...fromBase64(
          (await target.ok("GetThumbnail", { aasId: model.assetAdministrationShells[0].id })).value.contentBase64,
        ),
      ],
      [137, 80, 78, 71],
    );
  });

  it("files that are missing, external, or cannot be package parts are left out without failing, and named in a warning", async () => {
    const t = await fileTestEngine({ example: false });
    const submodel = {
      modelType: "Submodel",
      id: "urn:sm",
      submodelElements: [
        { modelType: "File", idShort: "External", contentType: "application/pdf", value: "https://example.org/a.pdf" },
        { modelType: "File", idShort: "Missing", contentType: "application/pdf", value: "/aasx/missing.pdf" },
        { modelType: "File", idShort: "Reserved", contentType: "text/plain", value: "/aasx/aasx-origin" },
      ],
    };
    await t.ok("ImportEnvironment", {
      mode: "all-or-nothing",
      documents: [{ format: "json", text: JSON.stringify({ submodels: [submodel] }) }],
    });
    await t.files.put("/aasx/aasx-origin", { contentType: "text/plain", bytes: Buffer.from("not the origin") });
    const aasx = (await t.ok("GenerateSerializationByIds", { format: "aasx" })).value;
    const content = readAasx(fromBase64(aasx.contentBase64), DEFAULT_AASX_LIMITS);
    assert.deepEqual(content.files, []);
    // The package must not name parts it lacks (strict readers fail on them): values that point
    // into the package without a stored file, or at a reserved part, are dropped from its copy of
    // the model; an external URL stays. The store keeps every value.
    const [external, missing, reserved] = submodel.submodelElements;
    const { value: _missingValue, ...missingWithoutValue } = missing!;
    const { value: _reservedValue, ...reservedWithoutValue } = reserved!;
    assert.deepEqual(content.environment, {
      submodels: [{ ...submodel, submodelElements: [external, missingWithoutValue, reservedWithoutValue] }],
    });
    assert.equal(aasx.warnings?.length, 1);
    assert.match(aasx.warnings![0]!, /\/aasx\/missing\.pdf/);
    assert.match(aasx.warnings![0]!, /\/aasx\/aasx-origin/);
    assert.doesNotMatch(aasx.warnings![0]!, /example\.org/);
  });

  it("an empty repository serializes to an empty Environment", async () => {
    const t = await fileTestEngine({ example: false });
    assert.deepEqual(await environmentOf(t), {});
    assert.ok(
      readAasx(
        fromBase64((await t.ok("GenerateSerializationByIds", { format: "aasx" })).value.contentBase64),
        DEFAULT_AASX_LIMITS,
      ),
    );
    await t.fails("GenerateSerializationByIds", { format: "pdf" as "json" }, "bad-request");
  });
});
