import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Command, CommandResult, CommandType, Principal, Reply } from "../contracts/index.ts";
import {
  compileAccessPolicy,
  createEngine,
  createMemoryFileStore,
  type Engine,
  type Repository,
} from "../engine/index.ts";

/**
 * With access rules, an upload is served through a File other than the one it was uploaded for
 * only to a caller who may read its owner (engine/files/upload-access.ts). A list item that moved
 * up an index (one before it was deleted) is still the File that uploaded its bytes: the caller
 * reading it is checked against the element it addresses, not against the index the bytes were
 * uploaded at. Run against every Repository implementation: the File is known by its orderKey,
 * which each keeps in its own way (docs/adr/0020).
 */

const submodelId = "urn:test:upload-access:list";
const admin: Principal = { kind: "user", name: "root", roles: ["admin"] };
/** May read only `Docs[0]`, whatever item is there. */
const first: Principal = { kind: "user", name: "first", roles: [] };
/** May read `Docs[1]` and the File `Doc` outside the list. */
const second: Principal = { kind: "user", name: "second", roles: [] };
/** May read `Docs[0]` and a path below the File `Doc`, which a File cannot hold. */
const below: Principal = { kind: "user", name: "below", roles: [] };
const rules = compileAccessPolicy([
  {
    subjects: [{ user: "below" }],
    rights: ["READ"],
    objects: [
      { submodels: submodelId, idShortPath: "Docs[0]" },
      { submodels: submodelId, idShortPath: "Doc.Below" },
    ],
  },
  { subjects: [{ role: "admin" }], rights: ["READ", "CREATE", "UPDATE", "DELETE"], objects: [{ all: true }] },
  { subjects: [{ user: "first" }], rights: ["READ"], objects: [{ submodels: submodelId, idShortPath: "Docs[0]" }] },
  {
    subjects: [{ user: "second" }],
    rights: ["READ"],
    objects: [
      { submodels: submodelId, idShortPath: "Docs[1]" },
      { submodels: submodelId, idShortPath: "Doc" },
    ],
  },
]);

const doc = () => ({ modelType: "File", idShort: "Doc", contentType: "text/plain" });
const item = () => ({ modelType: "SubmodelElementCollection", value: [doc()] });

async function engineWithList(repository: Repository, count: number): Promise<Engine> {
  await repository.clear();
  const engine = createEngine({
    repository,
    fileStore: createMemoryFileStore(),
    access: rules,
  });
  const submodel = {
    modelType: "Submodel",
    id: submodelId,
    submodelElements: [
      {
        modelType: "SubmodelElementList",
        idShort: "Docs",
        typeValueListElement: "SubmodelElementCollection",
        value: Array.from({ length: count }, item),
      },
      doc(),
    ],
  };
  const reply = await engine.execute({
    type: "PostSubmodel",
    params: { body: JSON.stringify(submodel) },
    origin: "test",
  });
  assert.ok(reply.ok);
  return engine;
}

function run<T extends CommandType>(
  engine: Engine,
  principal: Principal,
  type: T,
  params: Command<T>["params"],
): Promise<Reply<CommandResult<T>>> {
  return engine.execute({ type, params, origin: "test", principal } as Command<T>);
}

async function ok<T extends CommandType>(
  engine: Engine,
  type: T,
  params: Command<T>["params"],
): Promise<CommandResult<T>> {
  const reply = await run(engine, admin, type, params);
  assert.ok(reply.ok, `${type}: ${JSON.stringify(!reply.ok && reply.error)}`);
  return reply.value;
}

/** What `principal` gets from `idShortPath`'s attachment: its text, or the error code. */
async function attachment(engine: Engine, principal: Principal, idShortPath: string): Promise<string> {
  const reply = await run(engine, principal, "GetFileByPath", { submodelId, idShortPath });
  return reply.ok ? Buffer.from(reply.value.contentBase64, "base64").toString() : reply.error.code;
}

/** The value (the stored file's path) of the File at `idShortPath`, read as admin. */
async function fileValue(engine: Engine, idShortPath: string): Promise<string> {
  return ((await ok(engine, "GetSubmodelElementByPath", { submodelId, idShortPath })) as { value: string }).value;
}

async function upload(engine: Engine, idShortPath: string, text: string): Promise<void> {
  await ok(engine, "PutFileByPath", {
    submodelId,
    idShortPath,
    file: { fileName: "doc.txt", contentType: "text/plain", contentBase64: Buffer.from(text).toString("base64") },
  });
}

export function uploadAccessContract(name: string, makeRepository: () => Promise<Repository>): void {
  describe(`the read check of a list item's upload after the items moved up an index, on ${name}`, () => {
    let repository: Repository;
    before(async () => {
      repository = await makeRepository();
    });
    after(async () => {
      await repository.close();
    });

    it("is the element the request addresses, not the index the bytes were uploaded at", async () => {
      const engine = await engineWithList(repository, 3);
      for (const [index, text] of ["zero", "one", "two"].entries()) await upload(engine, `Docs[${index}].Doc`, text);
      assert.equal(await attachment(engine, first, "Docs[0].Doc"), "zero");
      assert.equal(await attachment(engine, first, "Docs[1].Doc"), "forbidden");

      await ok(engine, "DeleteSubmodelElementByPath", { submodelId, idShortPath: "Docs[0]" });
      // Docs[0] is the item that was Docs[1]: `first` may read it, and it holds "one" (uploaded when
      // it was Docs[1], a path `first` may not read). A rule on Docs[1] does not govern it any more.
      assert.equal(await attachment(engine, first, "Docs[0].Doc"), "one");
      // The item now at Docs[1] (was Docs[2]) is refused by the request's own path.
      assert.equal(await attachment(engine, first, "Docs[1].Doc"), "forbidden");
      assert.equal(await attachment(engine, admin, "Docs[1].Doc"), "two");
    });

    it("still hides another element's upload a File was pointed at", async () => {
      const engine = await engineWithList(repository, 2);
      await upload(engine, "Doc", "hidden");
      const hidden = await fileValue(engine, "Doc");
      await upload(engine, "Docs[1].Doc", "one");
      const one = await fileValue(engine, "Docs[1].Doc");
      // Docs[0] pointed at bytes uploaded for Doc and for Docs[1]: both elements `first` may not read.
      await ok(engine, "PatchSubmodelElementValueByPath", {
        submodelId,
        idShortPath: "Docs[0].Doc",
        body: JSON.stringify({ contentType: "text/plain", value: hidden }),
      });
      assert.equal(await attachment(engine, first, "Docs[0].Doc"), "not-found");
      await ok(engine, "PatchSubmodelElementValueByPath", {
        submodelId,
        idShortPath: "Docs[0].Doc",
        body: JSON.stringify({ contentType: "text/plain", value: one }),
      });
      assert.equal(await attachment(engine, first, "Docs[0].Doc"), "not-found");
      assert.equal(await attachment(engine, admin, "Docs[0].Doc"), "one");
    });

    it("a grant on a path below a File does not open the File's upload through another File", async () => {
      const engine = await engineWithList(repository, 1);
      await upload(engine, "Doc", "hidden");
      await ok(engine, "PatchSubmodelElementValueByPath", {
        submodelId,
        idShortPath: "Docs[0].Doc",
        body: JSON.stringify({ contentType: "text/plain", value: await fileValue(engine, "Doc") }),
      });
      // `Doc.Below` names nothing a File holds: `Doc` is not on the way to it (the path-only scope
      // showed `Doc`, and its bytes went out through the other File).
      assert.equal(await attachment(engine, below, "Docs[0].Doc"), "not-found");
      assert.equal(await attachment(engine, below, "Doc"), "forbidden");
      assert.equal(await attachment(engine, admin, "Docs[0].Doc"), "hidden");
    });

    it("a File pointed at a list item's upload: once that item moved, the rule on its old index no longer opens it", async () => {
      const engine = await engineWithList(repository, 3);
      for (const [index, text] of ["zero", "one", "two"].entries()) await upload(engine, `Docs[${index}].Doc`, text);
      const one = await fileValue(engine, "Docs[1].Doc");
      await ok(engine, "PatchSubmodelElementValueByPath", {
        submodelId,
        idShortPath: "Doc",
        body: JSON.stringify({ contentType: "text/plain", value: one }),
      });
      // `second` may read Docs[1], the owner of "one": through Doc too.
      assert.equal(await attachment(engine, second, "Doc"), "one");
      await ok(engine, "DeleteSubmodelElementByPath", { submodelId, idShortPath: "Docs[0]" });
      // The owner of "one" is Docs[0] now, which `second` may not read; Docs[1] is another item.
      assert.equal(await attachment(engine, second, "Docs[0].Doc"), "forbidden");
      assert.equal(await attachment(engine, second, "Doc"), "not-found");
      assert.equal(await attachment(engine, admin, "Doc"), "one");
    });
  });
}
