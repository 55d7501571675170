import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { strToU8 } from "fflate";
import { writeAasx } from "../../aas/index.ts";
import { base64, type FileTestEngine, fileTestEngine, fromBase64 } from "./test-support/files.ts";

/**
 * Files that come with packages and imports never replace or delete bytes someone else stored
 * (docs/adr/0051): not another element's upload, not another package's file, not an import's.
 */

/** A package with one shell, one submodel `<id>/sm` whose File Doc names `path`, and that file. */
function aasx(id: string, text: string, path = "/aasx/files/manual.txt"): string {
  return base64(
    writeAasx({
      environment: {
        assetAdministrationShells: [
          {
            modelType: "AssetAdministrationShell",
            id,
            idShort: "S",
            assetInformation: { assetKind: "Instance", globalAssetId: `${id}/asset`, defaultThumbnail: { path } },
          },
        ],
        submodels: [
          {
            modelType: "Submodel",
            id: `${id}/sm`,
            submodelElements: [{ modelType: "File", idShort: "Doc", contentType: "text/plain", value: path }],
          },
        ],
      },
      files: [{ path, contentType: "text/plain", bytes: strToU8(text) }],
    }),
  );
}

async function post(t: FileTestEngine, id: string, text: string, path?: string): Promise<string> {
  const file = { fileName: `${id}.aasx`, contentBase64: aasx(id, text, path) };
  return (await t.ok("PostAASXPackage", { file })).value.packageId;
}

async function docOf(t: FileTestEngine, id: string): Promise<string> {
  const reply = await t.run("GetFileByPath", { submodelId: `${id}/sm`, idShortPath: "Doc" });
  return reply.ok ? fromBase64(reply.value.contentBase64).toString() : `(${reply.error.code})`;
}

async function thumbnailOf(t: FileTestEngine, id: string): Promise<string> {
  const reply = await t.run("GetThumbnail", { aasId: id });
  return reply.ok ? fromBase64(reply.value.contentBase64).toString() : `(${reply.error.code})`;
}

async function valueOf(t: FileTestEngine, id: string): Promise<string> {
  return (
    (await t.ok("GetSubmodelElementByPath", { submodelId: `${id}/sm`, idShortPath: "Doc" })).value as {
      value: string;
    }
  ).value;
}

/** The stored model files (not the package and holder records). */
async function storedPaths(t: FileTestEngine): Promise<string[]> {
  return (await t.files.list("/")).map((info) => info.path);
}

describe("files of packages and imports", () => {
  it("two packages with the same generic path each keep their own file; deleting one leaves the other's", async () => {
    const t = await fileTestEngine({ example: false });
    const a = await post(t, "urn:a", "vendor A's manual");
    const b = await post(t, "urn:b", "vendor B's manual");
    assert.deepEqual([await docOf(t, "urn:a"), await docOf(t, "urn:b")], ["vendor A's manual", "vendor B's manual"]);
    assert.deepEqual(
      [await thumbnailOf(t, "urn:a"), await thumbnailOf(t, "urn:b")],
      ["vendor A's manual", "vendor B's manual"],
    );
    // The first keeps its path; the second's File and thumbnail name its own folder.
    assert.equal(await valueOf(t, "urn:a"), "/aasx/files/manual.txt");
    assert.match(await valueOf(t, "urn:b"), /^\/aasx\/packages\/[0-9a-f]{16}\/aasx\/files\/manual\.txt$/);
    // The package itself is kept byte for byte, with the paths it was posted with.
    const kept = (await t.ok("GetAASXByPackageId", { packageId: b })).value.contentBase64;
    assert.equal(kept, aasx("urn:b", "vendor B's manual"));

    await t.ok("DeleteAASXByPackageId", { packageId: a });
    assert.equal(await docOf(t, "urn:b"), "vendor B's manual");
    await t.ok("PostAASXPackage", { file: { fileName: "c.aasx", contentBase64: aasx("urn:c", "C") } });
    assert.deepEqual([await docOf(t, "urn:b"), await docOf(t, "urn:c")], ["vendor B's manual", "C"]);
    await t.ok("DeleteAASXByPackageId", { packageId: b });
    assert.equal(await docOf(t, "urn:c"), "C");
  });

  it("a part moved to a folder of its own whose File value would grow past 2000 characters refuses the package, leaving nothing", async () => {
    const t = await fileTestEngine({ example: false });
    const path = `/aasx/files/${"L".repeat(1980)}.txt`;
    await post(t, "urn:a", "first", path);
    const before = await storedPaths(t);
    const file = { fileName: "b.aasx", contentBase64: aasx("urn:b", "second", path) };
    const message = await t.fails("PostAASXPackage", { file }, "bad-request");
    assert.match(message, /longer than a File's value may be \(2000\)/);
    assert.deepEqual(await storedPaths(t), before);
    await t.fails("GetSubmodelById", { submodelId: "urn:b/sm" }, "not-found");
    assert.equal(await docOf(t, "urn:a"), "first");
  });

  it("identical bytes at one path are shared and stay until the last package holding them goes", async () => {
    const t = await fileTestEngine({ example: false });
    const a = await post(t, "urn:a", "same");
    const b = await post(t, "urn:b", "same");
    assert.equal(await valueOf(t, "urn:b"), "/aasx/files/manual.txt", "shared, not copied");
    assert.deepEqual(await storedPaths(t), ["/aasx/files/manual.txt"]);
    await t.ok("DeleteAASXByPackageId", { packageId: a });
    assert.equal(await docOf(t, "urn:b"), "same");
    await t.ok("DeleteAASXByPackageId", { packageId: b });
    assert.deepEqual(await storedPaths(t), []);
  });

  it("a package never replaces or deletes another element's upload, even when it carries a part at its path", async () => {
    const t = await fileTestEngine({ example: false });
    const victim = {
      modelType: "Submodel",
      id: "urn:victim",
      submodelElements: [{ modelType: "File", idShort: "Secret", contentType: "text/plain" }],
    };
    await t.ok("PostSubmodel", { body: JSON.stringify(victim) });
    const upload = { fileName: "secret.txt", contentType: "text/plain", contentBase64: base64("the original") };
    await t.ok("PutFileByPath", { submodelId: "urn:victim", idShortPath: "Secret", file: upload });
    const uploadPath = (
      (await t.ok("GetSubmodelElementByPath", { submodelId: "urn:victim", idShortPath: "Secret" })).value as {
        value: string;
      }
    ).value;
    const secret = async () =>
      fromBase64(
        (await t.ok("GetFileByPath", { submodelId: "urn:victim", idShortPath: "Secret" })).value.contentBase64,
      ).toString();

    const attacker = await post(t, "urn:attacker", "the attacker's bytes", uploadPath);
    assert.equal(await secret(), "the original", "the upload is not replaced");
    assert.equal(await docOf(t, "urn:attacker"), "the attacker's bytes", "the package serves its own file");
    assert.notEqual(await valueOf(t, "urn:attacker"), uploadPath);
    await t.ok("DeleteAASXByPackageId", { packageId: attacker });
    assert.equal(await secret(), "the original", "deleting the package leaves the upload");

    // Identical bytes do not make an upload a package's either.
    const same = await post(t, "urn:same", "the original", uploadPath);
    await t.ok("DeleteAASXByPackageId", { packageId: same });
    assert.equal(await secret(), "the original");
  });

  it("a package part waiting at an element's upload path is not replaced by the upload, nor deleted by it", async () => {
    const t = await fileTestEngine({ example: false });
    const target = {
      modelType: "Submodel",
      id: "urn:target",
      submodelElements: [{ modelType: "File", idShort: "Doc", contentType: "text/plain" }],
    };
    await t.ok("PostSubmodel", { body: JSON.stringify(target) });
    const file = (text: string) => ({ fileName: "doc.txt", contentType: "text/plain", contentBase64: base64(text) });
    await t.ok("PutFileByPath", { submodelId: "urn:target", idShortPath: "Doc", file: file("first upload") });
    const uploadPath = await (async () =>
      (
        (await t.ok("GetSubmodelElementByPath", { submodelId: "urn:target", idShortPath: "Doc" })).value as {
          value: string;
        }
      ).value)();
    await t.ok("DeleteFileByPath", { submodelId: "urn:target", idShortPath: "Doc" });
    // The path is free again: a package takes it, then the element uploads the same name.
    await post(t, "urn:p", "the package's file", uploadPath);
    assert.equal(await valueOf(t, "urn:p"), uploadPath);
    await t.ok("PutFileByPath", { submodelId: "urn:target", idShortPath: "Doc", file: file("second upload") });
    await t.ok("PutFileByPath", { submodelId: "urn:target", idShortPath: "Doc", file: file("third upload") });
    assert.equal(await docOf(t, "urn:p"), "the package's file");
    const reply = await t.ok("GetFileByPath", { submodelId: "urn:target", idShortPath: "Doc" });
    assert.equal(fromBase64(reply.value.contentBase64).toString(), "third upload");
    await t.ok("DeleteFileByPath", { submodelId: "urn:target", idShortPath: "Doc" });
    assert.equal(await docOf(t, "urn:p"), "the package's file");
  });

  it("a package sharing an import's file, or PUT over one, leaves it; an import's files are its own", async () => {
    const t = await fileTestEngine({ example: false });
    await t.ok("ImportEnvironment", {
      mode: "partial",
      documents: [{ format: "aasx", contentBase64: aasx("urn:model", "the model's manual") }],
    });
    const same = await post(t, "urn:same", "the model's manual");
    const other = await post(t, "urn:other", "another manual");
    assert.equal(await docOf(t, "urn:other"), "another manual");
    await t.ok("PutAASXByPackageId", {
      packageId: same,
      file: { fileName: "v2.aasx", contentBase64: aasx("urn:same", "a new manual") },
    });
    assert.equal(await docOf(t, "urn:same"), "a new manual");
    await t.ok("DeleteAASXByPackageId", { packageId: same });
    await t.ok("DeleteAASXByPackageId", { packageId: other });
    assert.equal(await docOf(t, "urn:model"), "the model's manual");
    assert.equal(await thumbnailOf(t, "urn:model"), "the model's manual");
    // A second import with other bytes at the path gets a folder of its own too.
    await t.ok("ImportEnvironment", {
      mode: "partial",
      documents: [{ format: "aasx", contentBase64: aasx("urn:import2", "the second import's manual") }],
    });
    assert.deepEqual(
      [await docOf(t, "urn:model"), await docOf(t, "urn:import2")],
      ["the model's manual", "the second import's manual"],
    );
  });

  it("an import that is refused, or writes nothing, leaves no file behind", async () => {
    const t = await fileTestEngine({ example: false });
    await post(t, "urn:a", "A");
    const before = await storedPaths(t);
    // Every id taken: the partial import writes nothing, and its file (other bytes) goes again.
    const reply = await t.ok("ImportEnvironment", {
      mode: "partial",
      documents: [{ format: "aasx", contentBase64: aasx("urn:a", "B") }],
    });
    assert.equal(reply.value.problems.length, 2);
    assert.deepEqual(await storedPaths(t), before);
    assert.equal(await docOf(t, "urn:a"), "A", "the import's file did not replace the package's");
    await t.fails(
      "PostAASXPackage",
      { file: { fileName: "again.aasx", contentBase64: aasx("urn:a", "B") } },
      "conflict",
    );
    assert.deepEqual(await storedPaths(t), before);
    await t.ok("ResetStore", {});
    assert.deepEqual(await t.files.list(), [], "reset clears files and their holders");
  });
});
