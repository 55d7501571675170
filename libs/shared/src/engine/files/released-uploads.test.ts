import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { base64, type FileTestEngine, fileTestEngine, fromBase64 } from "../handlers/test-support/files.ts";
import { RepositoryOutcomeUnknownError } from "../ports/index.ts";
import { DELETE_WAIT_BOUND_MS } from "./claimed-commit.ts";
import { fileKeyOf } from "./file-paths.ts";
import { RELEASE_ANSWER_BOUND_MS } from "./released-uploads.ts";

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

/** A submodel `id` with the Files F1 and F2; F1 holds an upload of "U": its model path. */
async function f1Uploaded(t: FileTestEngine, id: string): Promise<string> {
  const file = (idShort: string) => ({ modelType: "File", idShort, contentType: "text/plain" });
  await t.ok("PostSubmodel", {
    body: JSON.stringify({ modelType: "Submodel", id, submodelElements: [file("F1"), file("F2")] }),
  });
  await t.ok("PutFileByPath", {
    submodelId: id,
    idShortPath: "F1",
    file: { fileName: "u.txt", contentBase64: base64("U") },
  });
  return ((await t.ok("GetSubmodelElementByPath", { submodelId: id, idShortPath: "F1" })).value as { value: string })
    .value;
}

/** `held` settles once `letGo` is called: what a test holds a store's call on. */
function gate(): { held: Promise<void>; letGo: () => void } {
  let letGo!: () => void;
  const held = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  return { held, letGo };
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

describe("an upload another write points a File at while its owner lets go of it", () => {
  it("is never deleted under the File that names it: the release and that write run one after the other", async () => {
    const t = await fileTestEngine({ example: false });
    const id = "urn:test:released-uploads:race";
    const file = (idShort: string) => ({ modelType: "File", idShort, contentType: "text/plain" });
    await t.ok("PostSubmodel", {
      body: JSON.stringify({ modelType: "Submodel", id, submodelElements: [file("F1"), file("F2")] }),
    });
    const put = (text: string) =>
      t.ok("PutFileByPath", {
        submodelId: id,
        idShortPath: "F1",
        file: { fileName: `${text}.txt`, contentBase64: base64(text) },
      });
    await put("K0");
    // Each delete of a stored file looks whether F2 names it at that moment.
    const deletedUnderF2: string[] = [];
    const remove = t.files.delete.bind(t.files);
    t.files.delete = async (key) => {
      const f2 = await t.run("GetSubmodelElementByPath", { submodelId: id, idShortPath: "F2" });
      const named = f2.ok ? (f2.value as { value?: string }).value : undefined;
      if (named !== undefined && fileKeyOf(named) === key) deletedUnderF2.push(key);
      return await remove(key);
    };
    const rounds = { kept: 0 };
    for (let round = 1; round <= 40; round++) {
      const current = (
        (await t.ok("GetSubmodelElementByPath", { submodelId: id, idShortPath: "F1" })).value as {
          value: string;
        }
      ).value;
      // F1 lets go of `current` (a new attachment) while F2 is pointed at it. The PATCH leaves a few microtask turns later each round, so some round lands it between
      // the release's look at the submodel and its delete (where it lost the bytes).
      const later = async () => {
        for (let turn = 0; turn < round; turn++) await Promise.resolve();
        return await t.run("PatchSubmodelElementValueByPath", {
          submodelId: id,
          idShortPath: "F2",
          body: JSON.stringify({ contentType: "text/plain", value: current }),
        });
      };
      const [, patched] = await Promise.all([put(`K${round}`), later()]);
      assert.ok(patched.ok);
      const served = await t.run("GetFileByPath", { submodelId: id, idShortPath: "F2" });
      // Either order is a serial one: the PATCH first (the look sees F2, the bytes stay), or the
      // release first (F2 then names bytes that had gone before its write). Never both.
      if (served.ok) {
        assert.equal(fromBase64(served.value.contentBase64).toString(), `K${round - 1}`);
        rounds.kept++;
      }
    }
    assert.deepEqual(deletedUnderF2, [], "bytes deleted while F2's committed value named them");
    assert.ok(rounds.kept > 0, "no round had the PATCH first");
  });
});

describe("an upload is never replaced in place", () => {
  it("a File pointed at another's upload keeps its bytes when the owner uploads again under the same name", async () => {
    const t = await fileTestEngine({ example: false });
    const id = "urn:test:released-uploads:in-place";
    const file = (idShort: string) => ({ modelType: "File", idShort, contentType: "text/plain" });
    await t.ok("PostSubmodel", {
      body: JSON.stringify({ modelType: "Submodel", id, submodelElements: [file("Manual"), file("Copy")] }),
    });
    const put = (text: string) =>
      t.ok("PutFileByPath", {
        submodelId: id,
        idShortPath: "Manual",
        file: { fileName: "same.txt", contentBase64: base64(text) },
      });
    const valueOf = async (idShortPath: string) =>
      ((await t.ok("GetSubmodelElementByPath", { submodelId: id, idShortPath })).value as { value: string }).value;
    const bytesOf = async (idShortPath: string) =>
      fromBase64((await t.ok("GetFileByPath", { submodelId: id, idShortPath })).value.contentBase64).toString();
    await put("one");
    const first = await valueOf("Manual");
    const { revision } = await t.ok("PatchSubmodelElementValueByPath", {
      submodelId: id,
      idShortPath: "Copy",
      body: JSON.stringify({ contentType: "text/plain", value: first }),
    });
    await put("two");
    // The owner's File names its new bytes; the copy still serves what it named, under the same
    // revision (its ETag): the old bytes did not change under it.
    assert.notEqual(await valueOf("Manual"), first);
    assert.equal(await bytesOf("Manual"), "two");
    assert.equal(await bytesOf("Copy"), "one");
    assert.equal((await t.ok("GetFileByPath", { submodelId: id, idShortPath: "Copy" })).revision, revision);
    // Once the copy lets go too, the first upload goes.
    await t.ok("DeleteFileByPath", { submodelId: id, idShortPath: "Copy" });
    assert.equal(await t.files.get(fileKeyOf(first)!), undefined);
    assert.equal((await t.files.list("/aasx/files/")).length, 1);
  });
});

describe("a write whose release of an upload takes long", () => {
  it("is answered within the release's bound; the bytes go once the release is done", async () => {
    const t = await fileTestEngine({ example: false });
    const id = "urn:test:released-uploads:slow";
    await t.ok("PostSubmodel", {
      body: JSON.stringify({
        modelType: "Submodel",
        id,
        submodelElements: [{ modelType: "File", idShort: "F", contentType: "text/plain" }],
      }),
    });
    await t.ok("PutFileByPath", {
      submodelId: id,
      idShortPath: "F",
      file: { fileName: "old.txt", contentBase64: base64("old") },
    });
    // The delete of the bytes hangs until the test lets it go, as the read of a submodel of
    // 20,000 elements on Redis takes seconds: a write answered after its budget is a 504 for a
    // write that happened.
    const { held, letGo } = gate();
    const remove = t.files.delete.bind(t.files);
    t.files.delete = async (key) => {
      await held;
      return await remove(key);
    };
    const started = performance.now();
    const patched = await Promise.race([
      t.run("PatchSubmodelElementValueByPath", {
        submodelId: id,
        idShortPath: "F",
        body: JSON.stringify({ contentType: "text/plain", value: "https://example.com/new.txt" }),
      }),
      new Promise<"unanswered">((resolve) => setTimeout(() => resolve("unanswered"), RELEASE_ANSWER_BOUND_MS * 4)),
    ]);
    assert.ok(patched !== "unanswered", "the write waited for its release past the bound");
    assert.ok(patched.ok);
    assert.ok(performance.now() - started >= RELEASE_ANSWER_BOUND_MS * 0.9, "answered before the bound");
    assert.deepEqual(await storedUploads(t), ["old"], "the release is still running");
    letGo();
    for (let wait = 0; wait < 100 && (await t.files.list("/aasx/files/")).length > 0; wait++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(await storedUploads(t), [], "the bytes went after the answer");
  });
});

describe("an upload a write in flight named, kept by a release, when that write fails", () => {
  const id = "urn:test:released-uploads:failed-claim";

  /** F1 holds an upload; F2's write naming it is held in its plan until `open` is called. */
  async function heldWrite(t: FileTestEngine): Promise<{ upload: string; open: () => void; reading: Promise<void> }> {
    const upload = await f1Uploaded(t, id);
    const { held, letGo: open } = gate();
    const { held: reading, letGo: reached } = gate();
    const getElements = t.repository.getElements.bind(t.repository);
    t.repository.getElements = async (submodelId, paths) => {
      if (submodelId === id && paths.includes("F2")) {
        reached();
        await held;
      }
      return await getElements(submodelId, paths);
    };
    return { upload, open, reading };
  }

  const stored = async (t: FileTestEngine) => (await t.files.list("/aasx/files/")).map((info) => info.path);

  const failures = [
    {
      failure: "a stale If-Match",
      patch: (value: string) => ({
        body: JSON.stringify({ contentType: "text/plain", value }),
        preconditions: { ifMatch: ['"stale"'] },
      }),
      code: "precondition-failed",
    },
    {
      failure: "an invalid body",
      patch: (value: string) => ({ body: JSON.stringify({ contentType: 7, value }) }),
      code: "validation",
    },
  ];
  for (const { failure, patch, code } of failures)
    it(`goes once the write fails (${failure}), not at /reset`, async () => {
      const t = await fileTestEngine({ example: false });
      const { upload, open, reading } = await heldWrite(t);
      // F2 is pointed at F1's upload: the PATCH holds its claim, and waits in its plan.
      const patched = t.run("PatchSubmodelElementValueByPath", { submodelId: id, idShortPath: "F2", ...patch(upload) });
      await reading;
      // F1 lets go of the upload while the claim is held: the release keeps it, for F2's write.
      await t.ok("DeleteFileByPath", { submodelId: id, idShortPath: "F1" });
      assert.deepEqual(await stored(t), [fileKeyOf(upload)], "kept while F2's write may name it");
      open();
      const reply = await patched;
      assert.equal(reply.ok ? "ok" : reply.error.code, code);
      // No File names it and no write claims it any more: it is gone.
      assert.deepEqual(await stored(t), []);
    });

  it("stays once the write commits a File naming it", async () => {
    const t = await fileTestEngine({ example: false });
    const { upload, open, reading } = await heldWrite(t);
    const patch = t.run("PatchSubmodelElementValueByPath", {
      submodelId: id,
      idShortPath: "F2",
      body: JSON.stringify({ contentType: "text/plain", value: upload }),
    });
    await reading;
    await t.ok("DeleteFileByPath", { submodelId: id, idShortPath: "F1" });
    open();
    assert.ok((await patch).ok);
    assert.equal(
      fromBase64((await t.ok("GetFileByPath", { submodelId: id, idShortPath: "F2" })).value.contentBase64).toString(),
      "U",
    );
    // And goes once F2 lets go of it too.
    await t.ok("DeleteFileByPath", { submodelId: id, idShortPath: "F2" });
    assert.deepEqual(await stored(t), []);
  });
});

describe("an attachment committed while its submodel is being deleted", () => {
  it("goes with the submodel: the delete records what was committed after it read the uploads", async () => {
    const t = await fileTestEngine({ example: false });
    const id = "urn:test:released-uploads:delete-race";
    const file = (idShort: string) => ({ modelType: "File", idShort, contentType: "text/plain" });
    await t.ok("PostSubmodel", {
      body: JSON.stringify({ modelType: "Submodel", id, submodelElements: [file("F1"), file("F2")] }),
    });
    const attach = (idShortPath: string, text: string) =>
      t.ok("PutFileByPath", {
        submodelId: id,
        idShortPath,
        file: { fileName: `${text}.txt`, contentBase64: base64(text) },
      });
    await attach("F2", "before");
    // The delete reads the uploads its Files hold (it asks whether any upload is stored first,
    // uploads-mark.ts), then plans its commit, which reads the submodel: an attachment committed in
    // between is not among the uploads it read, and its bytes stayed until /reset.
    let stage: "waiting" | "read" | "done" = "waiting";
    const get = t.files.get.bind(t.files);
    t.files.get = async (path) => {
      if (stage === "waiting" && path === "uploads-stored") stage = "read";
      return await get(path);
    };
    const getIdentifiable = t.repository.getIdentifiable.bind(t.repository);
    t.repository.getIdentifiable = async (kind, identifier) => {
      const stored = await getIdentifiable(kind, identifier);
      if (stage === "read" && kind === "submodel" && identifier === id) {
        stage = "done";
        // The delete's plan read the submodel as it was before this attachment: its commit finds
        // the submodel changed and plans again.
        await attach("F1", "during");
      }
      return stored;
    };
    await t.ok("DeleteSubmodelById", { submodelId: id });
    assert.equal(stage, "done", "no attachment came between the delete's read of the uploads and its commit");
    assert.deepEqual(await storedUploads(t), [], "an upload of the deleted submodel was left behind");
  });
});

describe("an upload whose write did not commit", () => {
  const id = "urn:test:released-uploads:uncommitted";
  async function withFile(t: FileTestEngine): Promise<void> {
    await t.ok("PostSubmodel", {
      body: JSON.stringify({
        modelType: "Submodel",
        id,
        submodelElements: [{ modelType: "File", idShort: "F", contentType: "text/plain" }],
      }),
    });
  }
  const attach = (t: FileTestEngine, text: string, ifMatch?: string) =>
    t.run("PutFileByPath", {
      submodelId: id,
      idShortPath: "F",
      file: { fileName: `${text}.txt`, contentBase64: base64(text) },
      ...(ifMatch ? { preconditions: { ifMatch: [ifMatch] } } : {}),
    });

  it("goes although it cannot be read (a file /reset cut in half while it was stored)", async () => {
    const t = await fileTestEngine({ example: false });
    await withFile(t);
    const get = t.files.get.bind(t.files);
    t.files.get = async (key) => {
      if (key.startsWith("/aasx/files/")) throw new Error("The file kept changing while it was read");
      return await get(key);
    };
    const refused = await attach(t, "late", '"1"');
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.error.code, "precondition-failed");
    assert.deepEqual(await t.files.list("/aasx/files/"), [], "the failed write's upload was left behind");
  });

  it("stays when the commit's outcome is unknown: the File may name it", async () => {
    const t = await fileTestEngine({ example: false });
    await withFile(t);
    // The commit happens, its answer is lost on the way back (a command timeout, a cut connection).
    const commit = t.repository.commit.bind(t.repository);
    t.repository.commit = async (planned) => {
      await commit(planned);
      throw new RepositoryOutcomeUnknownError("Redis did not answer within the command timeout");
    };
    const unknown = await attach(t, "committed");
    assert.equal(unknown.ok, false);
    assert.equal(!unknown.ok && unknown.error.code, "timeout");
    const served = await t.run("GetFileByPath", { submodelId: id, idShortPath: "F" });
    assert.ok(served.ok, "the File that committed names bytes that were deleted");
    assert.equal(fromBase64(served.value.contentBase64).toString(), "committed");
  });
});

describe("a write pointing a File at an upload whose delete has begun", () => {
  it("commits after the delete, as if it came second: its File never serves the bytes and then loses them", async () => {
    const t = await fileTestEngine({ example: false });
    const id = "urn:test:released-uploads:delete-begun";
    const upload = await f1Uploaded(t, id);
    // The release's delete reads the file first (a filesystem store reads it from disk): held here.
    const { held, letGo } = gate();
    const { held: readingStarted, letGo: reading } = gate();
    const get = t.files.get.bind(t.files);
    t.files.get = async (key) => {
      if (key === fileKeyOf(upload)) {
        reading();
        await held;
      }
      return await get(key);
    };
    const deleted = t.run("DeleteFileByPath", { submodelId: id, idShortPath: "F1" });
    await readingStarted;
    const patch = t.run("PatchSubmodelElementByPath", {
      submodelId: id,
      idShortPath: "F2",
      body: JSON.stringify({ value: upload }),
    });
    const early = await Promise.race([
      patch.then(() => "answered"),
      new Promise((resolve) => setTimeout(() => resolve("waiting"), 200)),
    ]);
    assert.equal(early, "waiting", "the PATCH committed while the delete it came after was under way");
    letGo();
    assert.ok((await deleted).ok);
    assert.ok((await patch).ok);
    // Second, it names bytes that had gone: from its answer on, and never served.
    await t.fails("GetFileByPath", { submodelId: id, idShortPath: "F2" }, "not-found");
  });
});

describe("a write pointing a File at an upload whose delete hangs", () => {
  it("answers unavailable within its bound and writes nothing, not after the store came back", async () => {
    const t = await fileTestEngine({ example: false });
    const id = "urn:test:released-uploads:delete-hangs";
    const upload = await f1Uploaded(t, id);
    // A file store that hangs on this file (a stalled network mount) until the test lets it go.
    const { held, letGo } = gate();
    const get = t.files.get.bind(t.files);
    t.files.get = async (key) => {
      if (key === fileKeyOf(upload)) await held;
      return await get(key);
    };
    const deleted = t.run("DeleteFileByPath", { submodelId: id, idShortPath: "F1" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    const patched = await t.run("PatchSubmodelElementByPath", {
      submodelId: id,
      idShortPath: "F2",
      body: JSON.stringify({ value: upload }),
    });
    assert.equal(patched.ok, false);
    assert.equal(!patched.ok && patched.error.code, "unavailable");
    assert.ok(Date.now() - started < DELETE_WAIT_BOUND_MS + 2000, "it waited past its bound");
    letGo();
    assert.ok((await deleted).ok);
    const f2 = (await t.ok("GetSubmodelElementByPath", { submodelId: id, idShortPath: "F2" })).value as {
      value?: string;
    };
    assert.equal(f2.value, undefined, "the refused write committed later");
  });
});

describe("whether uploads may be stored is one mark, not a listing per deleted submodel", () => {
  it("deleting 30 submodels lists the stored files at most once, and still releases their uploads", async () => {
    const t = await fileTestEngine({ example: false });
    const ids = Array.from({ length: 30 }, (_, i) => `urn:test:uploads-mark:${i}`);
    for (const id of ids)
      await t.ok("PostSubmodel", {
        body: JSON.stringify({
          modelType: "Submodel",
          id,
          submodelElements: [{ modelType: "File", idShort: "F", contentType: "text/plain" }],
        }),
      });
    await t.ok("PutFileByPath", {
      submodelId: ids[0]!,
      idShortPath: "F",
      file: { fileName: "a.txt", contentBase64: base64("a") },
    });
    let listings = 0;
    const list = t.files.list.bind(t.files);
    t.files.list = async (prefix) => {
      listings++;
      return await list(prefix);
    };
    for (const id of ids) await t.ok("DeleteSubmodelById", { submodelId: id });
    assert.ok(listings <= 1, `${listings} listings of the stored files for 30 deletions`);
    assert.deepEqual(await storedUploads(t), [], "the upload went with its submodel");
  });

  it("an upload stored before the mark existed is found by one listing, and released", async () => {
    const t = await fileTestEngine({ example: false });
    const id = "urn:test:uploads-mark:old";
    await t.ok("PostSubmodel", {
      body: JSON.stringify({
        modelType: "Submodel",
        id,
        submodelElements: [{ modelType: "File", idShort: "F", contentType: "text/plain" }],
      }),
    });
    await t.ok("PutFileByPath", {
      submodelId: id,
      idShortPath: "F",
      file: { fileName: "old.txt", contentBase64: base64("old") },
    });
    await t.files.delete("uploads-stored");
    await t.ok("DeleteSubmodelById", { submodelId: id });
    assert.deepEqual(await storedUploads(t), [], "the upload went with its submodel");
  });
});
