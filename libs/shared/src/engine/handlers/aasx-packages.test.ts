import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { strToU8 } from "fflate";
import { writeAasx } from "../../aas/index.ts";
import { base64, fileTestEngine, fromBase64 } from "./test-support/files.ts";

const shell = (id: string) => ({
  id,
  idShort: "S",
  modelType: "AssetAdministrationShell",
  assetInformation: { assetKind: "Instance", globalAssetId: `${id}/asset` },
});

function aasx(shellId: string, fileBytes = "%PDF"): Uint8Array {
  return writeAasx({
    environment: {
      assetAdministrationShells: [
        {
          ...shell(shellId),
          submodels: [{ type: "ModelReference", keys: [{ type: "Submodel", value: `${shellId}/sm` }] }],
        },
      ],
      submodels: [
        {
          modelType: "Submodel",
          id: `${shellId}/sm`,
          submodelElements: [
            { modelType: "File", idShort: "Doc", contentType: "application/pdf", value: "/aasx/files/doc.pdf" },
          ],
        },
      ],
    },
    files: [{ path: "/aasx/files/doc.pdf", contentType: "application/pdf", bytes: strToU8(fileBytes) }],
  });
}

describe("AASX File Server", () => {
  it("a posted package joins the model and is kept byte for byte; deleting it removes what it brought", async () => {
    const t = await fileTestEngine({ example: false });
    const bytes = aasx("urn:p1");
    const { value } = await t.ok("PostAASXPackage", { file: { fileName: "p1.aasx", contentBase64: base64(bytes) } });
    assert.deepEqual(value.aasIds, ["urn:p1"]);
    assert.ok((await t.run("GetAssetAdministrationShellById", { aasId: "urn:p1" })).ok);
    const doc = (await t.ok("GetFileByPath", { submodelId: "urn:p1/sm", idShortPath: "Doc" })).value;
    assert.equal(fromBase64(doc.contentBase64).toString(), "%PDF");
    const got = (await t.ok("GetAASXByPackageId", { packageId: value.packageId })).value;
    assert.deepEqual(fromBase64(got.contentBase64), Buffer.from(bytes));
    assert.equal(got.fileName, "p1.aasx");

    await t.ok("DeleteAASXByPackageId", { packageId: value.packageId });
    assert.equal((await t.run("GetAssetAdministrationShellById", { aasId: "urn:p1" })).ok, false);
    assert.equal((await t.run("GetSubmodelById", { submodelId: "urn:p1/sm" })).ok, false);
    assert.deepEqual(await t.files.list(), []);
    await t.fails("GetAASXByPackageId", { packageId: value.packageId }, "not-found");
    await t.fails("DeleteAASXByPackageId", { packageId: value.packageId }, "not-found");
  });

  it("what clients uploaded into a package's content goes with it: DELETE and PUT of the package", async () => {
    const t = await fileTestEngine({ example: false });
    const uploads = async () =>
      (await t.files.list("/aasx/")).filter((f) => /^\/aasx\/(files|thumbnails)\/[0-9a-f]{16}\//.test(f.path));
    for (const replace of [false, true]) {
      const { value } = await t.ok("PostAASXPackage", {
        file: { fileName: "p.aasx", contentBase64: base64(aasx("urn:pu")) },
      });
      await t.ok("PutFileByPath", {
        submodelId: "urn:pu/sm",
        idShortPath: "Doc",
        file: { fileName: "mine.pdf", contentBase64: base64("mine") },
      });
      await t.ok("PutThumbnail", { aasId: "urn:pu", file: { fileName: "th.png", contentBase64: base64("png") } });
      assert.equal((await uploads()).length, 2);
      if (replace) {
        await t.ok("PutAASXByPackageId", {
          packageId: value.packageId,
          file: { fileName: "p.aasx", contentBase64: base64(aasx("urn:pu", "%PDF-2")) },
        });
        assert.deepEqual(await uploads(), [], "replaced content: the uploads into the old content went");
      }
      await t.ok("DeleteAASXByPackageId", { packageId: value.packageId });
      assert.deepEqual(await uploads(), [], "deleted: no upload left behind");
    }
  });

  it("lists packages with the aasId filter and paging; declared aasIds are kept", async () => {
    const t = await fileTestEngine({ example: false });
    const ids: string[] = [];
    for (const n of [1, 2, 3])
      ids.push(
        (
          await t.ok("PostAASXPackage", {
            file: { fileName: `p${n}.aasx`, contentBase64: base64(aasx(`urn:p${n}`)) },
            ...(n === 3 ? { aasIds: ["urn:declared"] } : {}),
          })
        ).value.packageId,
      );
    const all = (await t.ok("GetAllAASXPackageIds", {})).value;
    assert.deepEqual(all.items.map((p) => p.packageId).sort(), [...ids].sort());
    assert.deepEqual(
      (await t.ok("GetAllAASXPackageIds", { aasId: "urn:p2" })).value.items.map((p) => p.aasIds),
      [["urn:p2"]],
    );
    assert.deepEqual((await t.ok("GetAllAASXPackageIds", { aasId: "urn:declared" })).value.items.length, 1);
    const first = (await t.ok("GetAllAASXPackageIds", { page: { limit: 2 } })).value;
    assert.equal(first.items.length, 2);
    const rest = (await t.ok("GetAllAASXPackageIds", { page: { limit: 2, cursor: first.cursor } })).value;
    assert.equal(rest.cursor, undefined);
    assert.deepEqual(
      [...first.items, ...rest.items].map((p) => p.packageId),
      all.items.map((p) => p.packageId),
    );
  });

  it("content that already exists is a conflict and nothing is added; a broken package is a 400", async () => {
    const t = await fileTestEngine({ example: false });
    await t.ok("PostAASXPackage", { file: { fileName: "a.aasx", contentBase64: base64(aasx("urn:same")) } });
    await t.fails(
      "PostAASXPackage",
      { file: { fileName: "b.aasx", contentBase64: base64(aasx("urn:same")) } },
      "conflict",
    );
    await t.fails(
      "PostAASXPackage",
      { file: { fileName: "c.aasx", contentBase64: base64("PK broken") } },
      "bad-request",
      /^c\.aasx: /,
    );
    assert.equal((await t.ok("GetAllAASXPackageIds", {})).value.items.length, 1);
  });

  it("PUT replaces the package's content; a broken replacement changes nothing", async () => {
    const t = await fileTestEngine({ example: false });
    const { packageId } = (
      await t.ok("PostAASXPackage", { file: { fileName: "a.aasx", contentBase64: base64(aasx("urn:v1")) } })
    ).value;
    await t.fails(
      "PutAASXByPackageId",
      { packageId, file: { fileName: "x.aasx", contentBase64: base64("junk") } },
      "bad-request",
    );
    assert.ok((await t.run("GetAssetAdministrationShellById", { aasId: "urn:v1" })).ok);
    await t.ok("PutAASXByPackageId", {
      packageId,
      file: { fileName: "b.aasx", contentBase64: base64(aasx("urn:v2", "v2")) },
    });
    assert.equal((await t.run("GetAssetAdministrationShellById", { aasId: "urn:v1" })).ok, false);
    assert.ok((await t.run("GetAssetAdministrationShellById", { aasId: "urn:v2" })).ok);
    assert.equal(
      fromBase64(
        (await t.ok("GetFileByPath", { submodelId: "urn:v2/sm", idShortPath: "Doc" })).value.contentBase64,
      ).toString(),
      "v2",
    );
    assert.deepEqual((await t.ok("GetAllAASXPackageIds", {})).value.items, [{ packageId, aasIds: ["urn:v2"] }]);
    assert.equal((await t.ok("GetAASXByPackageId", { packageId })).value.fileName, "b.aasx");
    await t.fails(
      "PutAASXByPackageId",
      { packageId: "nope", file: { fileName: "b.aasx", contentBase64: base64(aasx("urn:v3")) } },
      "not-found",
    );
  });

  it("a file two packages brought stays until the last of them is deleted", async () => {
    const t = await fileTestEngine({ example: false });
    const a = (await t.ok("PostAASXPackage", { file: { fileName: "a.aasx", contentBase64: base64(aasx("urn:a")) } }))
      .value.packageId;
    await t.ok("PostAASXPackage", { file: { fileName: "b.aasx", contentBase64: base64(aasx("urn:b")) } });
    await t.ok("DeleteAASXByPackageId", { packageId: a });
    assert.ok((await t.run("GetFileByPath", { submodelId: "urn:b/sm", idShortPath: "Doc" })).ok);
  });
});

describe("ResetStore", () => {
  it("deletes every identifiable (one event each) and every file, after running the reset hooks", async () => {
    const t = await fileTestEngine();
    await t.files.put("/aasx/files/manual.txt", { contentType: "text/plain", bytes: Buffer.from("m") });
    await t.ok("PostAASXPackage", { file: { fileName: "a.aasx", contentBase64: base64(aasx("urn:a")) } });
    const calls: string[] = [];
    t.resetHooks.push(async () => void calls.push(`hook with ${t.events.length} events so far`));
    t.events.length = 0;
    await t.ok("ResetStore", {});
    assert.deepEqual(calls, ["hook with 0 events so far"]);
    assert.deepEqual(await t.files.list(), []);
    for (const type of ["GetAllAssetAdministrationShells", "GetAllSubmodels"] as const)
      assert.deepEqual((await t.ok(type, {})).value.items, []);
    assert.equal(t.events.filter((e) => e.kind === "shell.deleted").length, 4);
    assert.equal(t.events.filter((e) => e.kind === "submodel.deleted").length, 7);
    assert.equal(t.events.filter((e) => e.kind === "concept-description.deleted").length, 2);
    assert.equal(t.events.length, 13);
    await t.ok("ResetStore", {});
  });
});
