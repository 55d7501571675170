import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exampleModel } from "../../test-support/example-model.ts";
import { elementOwner, fileKeyOf, uploadPath } from "../files/file-paths.ts";
import { base64, fileTestEngine, fromBase64 } from "./test-support/files.ts";

/** The stored files, without the mark that says uploads may be stored (uploads-mark.ts). */
async function storedFiles(t: { files: { list(): Promise<{ path: string; contentType: string; size: number }[]> } }) {
  return (await t.files.list()).filter((file) => file.path !== "uploads-stored");
}

const model = exampleModel();
const submodelId = model.submodels[0].id as string;
const aasId = model.assetAdministrationShells[0].id as string;
const PDF = Buffer.from("%PDF-1.4 a manual\n%%EOF\n");

describe("attachments (File elements)", () => {
  it("PUT stores the bytes and points the File at them; GET gives them back with name and type", async () => {
    const t = await fileTestEngine();
    await t.ok("PutFileByPath", {
      submodelId,
      idShortPath: "Manual",
      file: { fileName: "my manual.pdf", contentType: "application/octet-stream", contentBase64: base64(PDF) },
    });
    const file = (await t.ok("GetFileByPath", { submodelId, idShortPath: "Manual" })).value;
    assert.deepEqual(fromBase64(file.contentBase64), PDF);
    assert.equal(file.fileName, "my manual.pdf");
    assert.equal(file.contentType, "application/pdf", "octet-stream is no information: the name tells");
    const element = (await t.ok("GetSubmodelElementByPath", { submodelId, idShortPath: "Manual" })).value as Record<
      string,
      unknown
    >;
    assert.match(element.value as string, /^\/aasx\/files\/[0-9a-f]{16}\/[0-9a-f]{8}\/my%20manual\.pdf$/);
    assert.equal(element.contentType, "application/pdf");
    assert.deepEqual(
      t.events.map((e) => [e.kind, e.idShortPath]),
      [["element.value-changed", "Manual"]],
    );
  });

  it("a declared content type wins over the name; the same name on two elements keeps two files", async () => {
    const t = await fileTestEngine();
    const other = model.submodels[1].id as string;
    await t.ok("PutFileByPath", {
      submodelId,
      idShortPath: "Manual",
      file: { fileName: "a.bin", contentType: "image/png", contentBase64: base64("one") },
    });
    await t.ok("PutFileByPath", {
      submodelId: other,
      idShortPath: "Manual",
      file: { fileName: "a.bin", contentBase64: base64("two") },
    });
    const first = (await t.ok("GetFileByPath", { submodelId, idShortPath: "Manual" })).value;
    const second = (await t.ok("GetFileByPath", { submodelId: other, idShortPath: "Manual" })).value;
    assert.equal(first.contentType, "image/png");
    assert.equal(second.contentType, "application/octet-stream");
    assert.equal(fromBase64(first.contentBase64).toString(), "one");
    assert.equal(fromBase64(second.contentBase64).toString(), "two");
  });

  it("a new upload replaces the old one's bytes; DELETE clears the value and the uploaded bytes", async () => {
    const t = await fileTestEngine();
    await t.ok("PutFileByPath", {
      submodelId,
      idShortPath: "Manual",
      file: { fileName: "v1.txt", contentBase64: base64("v1") },
    });
    await t.ok("PutFileByPath", {
      submodelId,
      idShortPath: "Manual",
      file: { fileName: "v2.txt", contentBase64: base64("v2") },
    });
    assert.deepEqual(
      (await storedFiles(t)).map((f) => f.path.replace(/[0-9a-f]{16}\/[0-9a-f]{8}/, "*")),
      ["/aasx/files/*/v2.txt"],
    );
    await t.ok("DeleteFileByPath", { submodelId, idShortPath: "Manual" });
    assert.deepEqual(await storedFiles(t), []);
    const element = (await t.ok("GetSubmodelElementByPath", { submodelId, idShortPath: "Manual" })).value as Record<
      string,
      unknown
    >;
    assert.equal(element.value, undefined);
    assert.equal(element.contentType, "text/plain", "the File keeps its (mandatory) contentType");
    await t.fails("GetFileByPath", { submodelId, idShortPath: "Manual" }, "not-found", /has no content/);
    await t.fails("DeleteFileByPath", { submodelId, idShortPath: "Manual" }, "not-found");
  });

  it("bytes a File shares with a package stay when the File gets new content", async () => {
    const t = await fileTestEngine();
    await t.files.put("/aasx/files/manual.txt", { contentType: "text/plain", bytes: Buffer.from("shared") });
    assert.equal(
      fromBase64((await t.ok("GetFileByPath", { submodelId, idShortPath: "Manual" })).value.contentBase64).toString(),
      "shared",
    );
    await t.ok("PutFileByPath", {
      submodelId,
      idShortPath: "Manual",
      file: { fileName: "own.txt", contentBase64: base64("own") },
    });
    assert.ok(await t.files.get("/aasx/files/manual.txt"), "another File of the example still points there");
  });

  it("an upload stored before uploads had owners is still the element's: released and deleted as its own", async () => {
    const t = await fileTestEngine();
    const path = uploadPath("files", elementOwner(submodelId, "Manual"), "old.txt");
    await t.files.put(fileKeyOf(path)!, { contentType: "text/plain", bytes: Buffer.from("no owner") });
    await t.ok("PatchSubmodelElementValueByPath", {
      submodelId,
      idShortPath: "Manual",
      body: JSON.stringify({ Manual: { contentType: "text/plain", value: path } }),
    });
    await t.ok("PutFileByPath", {
      submodelId,
      idShortPath: "Manual",
      file: { fileName: "old.txt", contentBase64: base64("new") },
    });
    assert.equal(
      fromBase64((await t.ok("GetFileByPath", { submodelId, idShortPath: "Manual" })).value.contentBase64).toString(),
      "new",
    );
    // Uploads are never replaced in place (another File may serve them): the new one lies beside
    // the old one's path, and the old one, which no File names any more, is gone.
    const now = (
      (await t.ok("GetSubmodelElementByPath", { submodelId, idShortPath: "Manual" })).value as { value: string }
    ).value;
    assert.notEqual(fileKeyOf(now), fileKeyOf(path));
    assert.deepEqual(
      (await t.files.list("/aasx/files/")).map((f) => f.path),
      [fileKeyOf(now)],
    );
    await t.ok("DeleteFileByPath", { submodelId, idShortPath: "Manual" });
    assert.deepEqual(await t.files.list("/aasx/files/"), []);
  });

  it("a refused PUT under the current file's name keeps the current file", async () => {
    const t = await fileTestEngine();
    const file = (text: string) => ({ fileName: "same.txt", contentBase64: base64(text) });
    const { revision } = await t.ok("PutFileByPath", { submodelId, idShortPath: "Manual", file: file("kept") });
    await t.fails(
      "PutFileByPath",
      { submodelId, idShortPath: "Manual", file: file("refused"), preconditions: { ifMatch: [`${revision}-stale`] } },
      "precondition-failed",
    );
    assert.ok((await t.run("GetFileByPath", { submodelId, idShortPath: "Manual" })).ok, "still stored");
  });

  it("only File elements have an attachment (405); missing things are 404 and leave no bytes behind", async () => {
    const t = await fileTestEngine();
    await t.fails(
      "PutFileByPath",
      { submodelId, idShortPath: "Firmware", file: { fileName: "x", contentBase64: base64("x") } },
      "method-not-allowed",
      /Only File elements/,
    );
    await t.fails("GetFileByPath", { submodelId, idShortPath: "Firmware" }, "method-not-allowed");
    await t.fails(
      "PutFileByPath",
      { submodelId, idShortPath: "Nope", file: { fileName: "x", contentBase64: base64("x") } },
      "not-found",
    );
    await t.fails(
      "PutFileByPath",
      { submodelId: "urn:none", idShortPath: "Manual", file: { fileName: "x", contentBase64: base64("x") } },
      "not-found",
      /Submodel/,
    );
    await t.fails(
      "PutFileByPath",
      { submodelId, idShortPath: "Manual", file: { fileName: "x", contentBase64: "%%%" } },
      "bad-request",
      /base64/,
    );
    assert.deepEqual(await storedFiles(t), []);
    await t.fails("GetFileByPath", { submodelId, idShortPath: "Manual" }, "not-found", /not stored/);
  });

  it("below a shell the submodel must be one of the shell's", async () => {
    const t = await fileTestEngine();
    const foreign = model.submodels.find(
      (s) => !JSON.stringify(model.assetAdministrationShells[0].submodels).includes(s.id),
    )!.id as string;
    await t.ok("PutFileByPath", {
      aasId,
      submodelId,
      idShortPath: "Manual",
      file: { fileName: "x.txt", contentBase64: base64("x") },
    });
    await t.fails(
      "PutFileByPath",
      { aasId, submodelId: foreign, idShortPath: "Manual", file: { fileName: "x.txt", contentBase64: base64("x") } },
      "not-found",
    );
  });

  it("If-Match is checked in the write", async () => {
    const t = await fileTestEngine();
    await t.fails(
      "PutFileByPath",
      {
        submodelId,
        idShortPath: "Manual",
        file: { fileName: "x.txt", contentBase64: base64("x") },
        preconditions: { ifMatch: ["1"] },
      },
      "precondition-failed",
    );
    assert.deepEqual(await storedFiles(t), [], "the bytes of a refused write are removed");
  });
});

describe("thumbnails", () => {
  it("PUT, GET and DELETE the default thumbnail; the shell changes once per write", async () => {
    const t = await fileTestEngine();
    const png = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]);
    await t.ok("PutThumbnail", { aasId, file: { fileName: "pump.png", contentBase64: base64(png) } });
    const got = (await t.ok("GetThumbnail", { aasId })).value;
    assert.deepEqual(fromBase64(got.contentBase64), png);
    assert.equal(got.contentType, "image/png");
    assert.equal(got.fileName, "pump.png");
    const shell = (await t.ok("GetAssetAdministrationShellById", { aasId })).value as {
      assetInformation: { defaultThumbnail: { path: string; contentType: string } };
    };
    assert.match(
      shell.assetInformation.defaultThumbnail.path,
      /^\/aasx\/thumbnails\/[0-9a-f]{16}\/[0-9a-f]{8}\/pump\.png$/,
    );
    await t.ok("DeleteThumbnail", { aasId });
    assert.deepEqual(await storedFiles(t), []);
    await t.fails("GetThumbnail", { aasId }, "not-found");
    await t.fails("DeleteThumbnail", { aasId }, "not-found");
    assert.deepEqual(
      t.events.map((e) => e.kind),
      ["shell.updated", "shell.updated"],
    );
  });

  it("a thumbnail without contentType answers with the stored type or the name's, never fails", async () => {
    const t = await fileTestEngine();
    await t.files.put("/aasx/thumbnail.png", { contentType: "application/octet-stream", bytes: Buffer.from("png") });
    const shell = structuredClone(model.assetAdministrationShells[0]);
    delete shell.assetInformation.defaultThumbnail.contentType;
    await t.ok("PutAssetAdministrationShellById", { aasId, body: JSON.stringify(shell) });
    const got = (await t.ok("GetThumbnail", { aasId })).value;
    assert.equal(got.contentType, "image/png");
    await t.files.put("/aasx/thumbnail.png", { contentType: "image/x-custom", bytes: Buffer.from("png") });
    assert.equal((await t.ok("GetThumbnail", { aasId })).value.contentType, "image/x-custom");
  });

  it("an unknown shell is 404 and stores nothing", async () => {
    const t = await fileTestEngine();
    await t.fails(
      "PutThumbnail",
      { aasId: "urn:nobody", file: { fileName: "a.png", contentBase64: base64("x") } },
      "not-found",
    );
    await t.fails("GetThumbnail", { aasId: "urn:nobody" }, "not-found");
    assert.deepEqual(await storedFiles(t), []);
  });
});
