import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { base64, type FileTestEngine, fileTestEngine, fromBase64 } from "../handlers/test-support/files.ts";

const submodelId = "urn:test:released-uploads:list";
const doc = (value?: string) => ({
  modelType: "File",
  idShort: "Doc",
  contentType: "text/plain",
  ...(value === undefined ? {} : { value }),
});
const item = (value?: string) => ({ modelType: "SubmodelElementCollection", value: [doc(value)] });

async function listOfDocs(t: FileTestEngine, count: number): Promise<void> {
  const items = Array.from({ length: count }, () => item());
  await t.ok("PostSubmodel", {
    body: JSON.stringify({
      modelType: "Submodel",
      id: submodelId,
      submodelElements: [
        {
          modelType: "SubmodelElementList",
          idShort: "Docs",
          typeValueListElement: "SubmodelElementCollection",
          value: items,
        },
      ],
    }),
  });
}

async function upload(t: FileTestEngine, index: number, text: string): Promise<void> {
  await t.ok("PutFileByPath", {
    submodelId,
    idShortPath: `Docs[${index}].Doc`,
    file: { fileName: "doc.txt", contentBase64: base64(text) },
  });
}

async function attachment(t: FileTestEngine, index: number): Promise<string> {
  const file = (await t.ok("GetFileByPath", { submodelId, idShortPath: `Docs[${index}].Doc` })).value;
  return fromBase64(file.contentBase64).toString();
}

/** The contents of every upload stored, sorted: what the store still holds. */
async function storedUploads(t: FileTestEngine): Promise<string[]> {
  const texts: string[] = [];
  for (const info of await t.files.list("/aasx/files/"))
    texts.push(Buffer.from((await t.files.get(info.path))!.bytes).toString());
  return texts.sort();
}

describe("uploads of list items that moved up an index", () => {
  it("go when the shifted item is deleted, overwritten or gets a new attachment; never while a File names them", async () => {
    const t = await fileTestEngine();
    await listOfDocs(t, 4);
    for (const [index, text] of ["zero", "one", "two", "three"].entries()) await upload(t, index, text);
    await t.ok("DeleteSubmodelElementByPath", { submodelId, idShortPath: "Docs[0]" });
    assert.deepEqual(await storedUploads(t), ["one", "three", "two"]);
    assert.equal(await attachment(t, 0), "one", "Docs[0] is the item that was Docs[1]");

    // Docs[1] (was Docs[2]) uploads under the name Docs[1]'s upload ("one") has: those bytes are
    // Docs[0]'s now, so they are not replaced, and "two", which nothing names any more, goes.
    await upload(t, 1, "one again");
    assert.equal(await attachment(t, 0), "one", "another item's upload is never replaced");
    assert.equal(await attachment(t, 1), "one again");
    assert.deepEqual(await storedUploads(t), ["one", "one again", "three"]);

    // A new attachment of the shifted item releases what it named before.
    await upload(t, 0, "zero again");
    assert.deepEqual(await storedUploads(t), ["one again", "three", "zero again"]);

    // Deleted after the shift: its upload goes.
    await t.ok("DeleteSubmodelElementByPath", { submodelId, idShortPath: "Docs[0]" });
    assert.deepEqual(await storedUploads(t), ["one again", "three"]);
    assert.equal(await attachment(t, 0), "one again");
    assert.equal(await attachment(t, 1), "three");

    // Overwritten by a PUT of the item (was Docs[3], now Docs[1]).
    await t.ok("PutSubmodelElementByPath", { submodelId, idShortPath: "Docs[1]", body: JSON.stringify(item()) });
    assert.deepEqual(await storedUploads(t), ["one again"]);

    // The attachment DELETEd (Docs[0] was Docs[2]).
    await t.ok("DeleteFileByPath", { submodelId, idShortPath: "Docs[0].Doc" });
    assert.deepEqual(await storedUploads(t), []);
  });

  it("a shifted item's upload another File still names stays until the last one lets go", async () => {
    const t = await fileTestEngine();
    await listOfDocs(t, 3);
    for (const [index, text] of ["zero", "one", "two"].entries()) await upload(t, index, text);
    await t.ok("DeleteSubmodelElementByPath", { submodelId, idShortPath: "Docs[0]" });
    const one = (await t.ok("GetSubmodelElementByPath", { submodelId, idShortPath: "Docs[0].Doc" })).value as {
      value: string;
    };
    // Docs[1] points at the upload Docs[0] (was Docs[1]) holds; its own ("two") goes.
    await t.ok("PutSubmodelElementByPath", {
      submodelId,
      idShortPath: "Docs[1]",
      body: JSON.stringify(item(one.value)),
    });
    assert.deepEqual(await storedUploads(t), ["one"]);
    await t.ok("DeleteSubmodelElementByPath", { submodelId, idShortPath: "Docs[0]" });
    assert.deepEqual(await storedUploads(t), ["one"], "Docs[0] (was Docs[1]) still names it");
    assert.equal(await attachment(t, 0), "one");
    await t.ok("DeleteSubmodelElementByPath", { submodelId, idShortPath: "Docs[0]" });
    assert.deepEqual(await storedUploads(t), []);
  });

  it("go with their submodel", async () => {
    const t = await fileTestEngine();
    await listOfDocs(t, 3);
    for (const [index, text] of ["zero", "one", "two"].entries()) await upload(t, index, text);
    await t.ok("DeleteSubmodelElementByPath", { submodelId, idShortPath: "Docs[0]" });
    await t.ok("DeleteSubmodelById", { submodelId });
    assert.deepEqual(await storedUploads(t), []);
  });
});

describe("an uploaded thumbnail the shell no longer names", () => {
  const aasId = "urn:test:released-uploads:shell";
  const assetInformation = { assetKind: "Instance", globalAssetId: "urn:test:released-uploads:asset" };
  const shell = (info: Record<string, unknown>) =>
    JSON.stringify({ modelType: "AssetAdministrationShell", id: aasId, assetInformation: info });

  async function withThumbnail(): Promise<{ t: FileTestEngine; path: string }> {
    const t = await fileTestEngine({ example: false });
    await t.ok("PostAssetAdministrationShell", { body: shell(assetInformation) });
    await t.ok("PutThumbnail", { aasId, file: { fileName: "t.png", contentBase64: base64("png") } });
    const info = (await t.ok("GetAssetInformation", { aasId })).value as { defaultThumbnail: { path: string } };
    return { t, path: info.defaultThumbnail.path };
  }

  async function storedThumbnails(t: FileTestEngine): Promise<string[]> {
    return (await t.files.list("/aasx/thumbnails/")).map((info) => info.path);
  }

  it("goes after a PUT of the asset information without it, stays after one that keeps it", async () => {
    const { t, path } = await withThumbnail();
    const kept = { ...assetInformation, defaultThumbnail: { path, contentType: "image/png" } };
    await t.ok("PutAssetInformation", { aasId, body: JSON.stringify(kept) });
    assert.equal((await storedThumbnails(t)).length, 1, "still named");
    await t.ok("PutAssetInformation", { aasId, body: JSON.stringify(assetInformation) });
    assert.deepEqual(await storedThumbnails(t), []);
  });

  it("goes after a PUT of the shell naming another thumbnail", async () => {
    const { t } = await withThumbnail();
    const other = { ...assetInformation, defaultThumbnail: { path: "https://example.org/t.png" } };
    await t.ok("PutAssetAdministrationShellById", { aasId, body: shell(other) });
    assert.deepEqual(await storedThumbnails(t), []);
  });

  it("goes with the shell, also after a PUT that kept it", async () => {
    const { t, path } = await withThumbnail();
    const kept = { ...assetInformation, defaultThumbnail: { path } };
    await t.ok("PutAssetAdministrationShellById", { aasId, body: shell(kept) });
    assert.equal((await storedThumbnails(t)).length, 1);
    await t.ok("DeleteAssetAdministrationShellById", { aasId });
    assert.deepEqual(await storedThumbnails(t), []);
  });

  it("a write refused by If-Match releases nothing", async () => {
    const { t } = await withThumbnail();
    await t.fails(
      "PutAssetInformation",
      { aasId, body: JSON.stringify(assetInformation), preconditions: { ifMatch: ['"stale"'] } },
      "precondition-failed",
    );
    assert.equal((await storedThumbnails(t)).length, 1);
  });
});
