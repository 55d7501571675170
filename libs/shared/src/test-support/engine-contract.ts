/**
 * The engine's behaviour, run against every Repository implementation (memory here, Redis in the
 * model-store): the same commands must give the same answers whatever stores the model.
 */

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import type { ChangeEvent, Command, CommandResult, CommandType, Reply } from "../contracts/index.ts";
import {
  createEngine,
  createInProcessEventBus,
  type Engine,
  type EngineOptions,
  type Repository,
} from "../engine/index.ts";
import { EXAMPLE_MODEL_TEXT, exampleModel } from "./example-model.ts";

export function engineContract(
  name: string,
  makeRepository: () => Promise<Repository>,
  engineOptions: Partial<EngineOptions> = {},
): void {
  describe(`engine on ${name}`, () => {
    let repository: Repository;
    let engine: Engine;
    let events: ChangeEvent[];

    async function run<T extends CommandType>(type: T, params: Command<T>["params"]): Promise<Reply<CommandResult<T>>> {
      return engine.execute({ type, params, origin: "test" } as Command<T>);
    }
    async function ok<T extends CommandType>(type: T, params: Command<T>["params"]) {
      const reply = await run(type, params);
      assert.ok(reply.ok, `${type} failed: ${JSON.stringify(!reply.ok && reply.error)}`);
      return reply;
    }
    async function fails<T extends CommandType>(type: T, params: Command<T>["params"], code: string) {
      const reply = await run(type, params);
      assert.equal(reply.ok, false, `${type} should fail with ${code}`);
      if (!reply.ok) assert.equal(reply.error.code, code, reply.error.message);
      return reply;
    }

    const model = exampleModel();
    const sm = model.submodels.find((s) =>
      s.submodelElements?.some((e: any) => e.modelType === "SubmodelElementList"),
    )!;
    const smId: string = sm.id;
    const prop = sm.submodelElements.find((e: any) => e.modelType === "Property");

    before(async () => {
      repository = await makeRepository();
    });
    after(async () => {
      await repository.close();
    });
    beforeEach(async () => {
      await repository.clear();
      const bus = createInProcessEventBus();
      events = [];
      await bus.subscribe({ onEvent: (e) => events.push(e) });
      engine = createEngine({ repository, bus, ...engineOptions });
      await ok("LoadEnvironment", { body: EXAMPLE_MODEL_TEXT });
    });

    test("loads the example model and reads every identifiable back unchanged", async () => {
      const shells = await ok("GetAllAssetAdministrationShells", {});
      assert.equal((shells.value as any).items.length, model.assetAdministrationShells.length);
      for (const s of model.submodels) {
        const reply = await ok("GetSubmodelById", { submodelId: s.id });
        assert.deepEqual(reply.value, s);
        assert.ok(typeof reply.revision === "number" && reply.revision > 0);
      }
      for (const shell of model.assetAdministrationShells) {
        assert.deepEqual((await ok("GetAssetAdministrationShellById", { aasId: shell.id })).value, shell);
      }
    });

    test("pages shells with an opaque cursor and filters by idShort", async () => {
      const first = (await ok("GetAllAssetAdministrationShells", { page: { limit: 2 } })).value as any;
      assert.equal(first.items.length, 2);
      assert.ok(first.cursor);
      const second = (await ok("GetAllAssetAdministrationShells", { page: { limit: 2, cursor: first.cursor } }))
        .value as any;
      assert.equal(second.items.length, 1);
      assert.equal(second.cursor, undefined);
      const ids = [...first.items, ...second.items].map((s: any) => s.id);
      assert.deepEqual(
        ids,
        model.assetAdministrationShells.map((s) => s.id),
      );
      const byIdShort = (
        await ok("GetAllAssetAdministrationShells", { idShort: model.assetAdministrationShells[1].idShort })
      ).value as any;
      assert.deepEqual(
        byIdShort.items.map((s: any) => s.id),
        [model.assetAdministrationShells[1].id],
      );
      await fails("GetAllAssetAdministrationShells", { page: { limit: 0 } }, "bad-request");
      await fails("GetAllAssetAdministrationShells", { page: { cursor: "not-a-cursor!" } }, "bad-request");
      // Only a cursor this list gave: not a number of another form, not another list's (a 400, never
      // a page that silently starts elsewhere or looks like the end).
      const b64 = (text: string) => Buffer.from(text).toString("base64url");
      for (const made of ["-5", " 5", "0x10", "1e3", "5", "garbage"])
        await fails("GetAllAssetAdministrationShells", { page: { cursor: b64(made) } }, "bad-request");
      const submodelsCursor = (await ok("GetAllSubmodels", { page: { limit: 1 } })).value as any;
      assert.ok(submodelsCursor.cursor);
      await fails("GetAllAssetAdministrationShells", { page: { cursor: submodelsCursor.cursor } }, "bad-request");
      const elementsPage = (await ok("GetAllSubmodelElements", { submodelId: smId, page: { limit: 1 } })).value as any;
      assert.ok(elementsPage.cursor);
      for (const made of ["garbage", "0", "0000000000000000"])
        await fails(
          "GetAllSubmodelElements",
          { submodelId: smId, page: { limit: 1, cursor: b64(made) } },
          "bad-request",
        );
      await fails("GetAllSubmodelElements", { submodelId: smId, page: { cursor: first.cursor } }, "bad-request");
      // A $path cursor of another submodel: refused, quoting the cursor as the client sent it (not
      // the repository cursor inside it).
      // One that names a repository position (its `r`): pages of the top-level paths.
      let pathPage: any;
      for (let limit = 1; ; limit++) {
        pathPage = (
          await ok("GetAllSubmodelElements", {
            submodelId: smId,
            page: { limit },
            modifiers: { content: "path", level: "core" },
          })
        ).value;
        assert.ok(pathPage.cursor, "the submodel has more than one top-level element");
        if (JSON.parse(Buffer.from(pathPage.cursor, "base64url").toString("utf8")).r !== undefined) break;
      }
      const other = model.submodels.find((s) => s.id !== smId && (s.submodelElements?.length ?? 0) > 0)!;
      const refused = await fails(
        "GetAllSubmodelElements",
        {
          submodelId: other.id,
          page: { limit: 2, cursor: pathPage.cursor },
          modifiers: { content: "path", level: "core" },
        },
        "bad-request",
      );
      assert.ok(
        !refused.ok && refused.error.message.includes(pathPage.cursor),
        !refused.ok ? refused.error.message : "",
      );
    });

    test("ids are unique across the repository; a shell id is not a submodel", async () => {
      const shell = model.assetAdministrationShells[0];
      await fails("PostAssetAdministrationShell", { body: JSON.stringify(shell) }, "conflict");
      await fails("PostSubmodel", { body: JSON.stringify({ ...sm, id: shell.id }) }, "conflict");
      await fails("GetAssetAdministrationShellById", { aasId: smId }, "not-found");
      await fails("GetSubmodelById", { submodelId: shell.id }, "not-found");
    });

    test("rejects unknown JSON properties, malformed JSON and metamodel violations with paths", async () => {
      const eventsBefore = events.length;
      const bad = await fails(
        "PostAssetAdministrationShell",
        { body: JSON.stringify({ ...model.assetAdministrationShells[0], id: "urn:x", colour: "red" }) },
        "bad-request",
      );
      assert.match(!bad.ok ? bad.error.message + (bad.error.path ?? "") : "", /colour/);
      await fails("PostAssetAdministrationShell", { body: "{not json" }, "bad-request");
      await fails("PostAssetAdministrationShell", { body: "" }, "bad-request");
      const invalid = await fails(
        "PostSubmodel",
        {
          body: JSON.stringify({
            modelType: "Submodel",
            id: "urn:v",
            idShort: "1bad",
            submodelElements: [{ modelType: "Property", idShort: "p", valueType: "xs:int", value: "x" }],
          }),
        },
        "validation",
      );
      assert.ok(!invalid.ok && (invalid.error.details?.length ?? 0) >= 2, "all constraint violations are collected");
      assert.equal(events.length, eventsBefore, "failed writes publish nothing");
    });

    test("shell put/delete: same id required, missing is 404, delete removes it", async () => {
      const shell = { ...model.assetAdministrationShells[0], idShort: "Renamed" };
      await ok("PutAssetAdministrationShellById", { aasId: shell.id, body: JSON.stringify(shell) });
      assert.equal(
        ((await ok("GetAssetAdministrationShellById", { aasId: shell.id })).value as any).idShort,
        "Renamed",
      );
      await fails(
        "PutAssetAdministrationShellById",
        { aasId: "urn:other", body: JSON.stringify(shell) },
        "bad-request",
      );
      await fails(
        "PutAssetAdministrationShellById",
        { aasId: "urn:missing", body: JSON.stringify({ ...shell, id: "urn:missing" }) },
        "not-found",
      );
      await ok("DeleteAssetAdministrationShellById", { aasId: shell.id });
      await fails("GetAssetAdministrationShellById", { aasId: shell.id }, "not-found");
      await fails("DeleteAssetAdministrationShellById", { aasId: shell.id }, "not-found");
    });

    test("elements: post at root and into containers, idShort unique among siblings, put and delete", async () => {
      const element = { modelType: "Property", idShort: "NewProp", valueType: "xs:string", value: "hi" };
      const posted = await ok("PostSubmodelElement", { submodelId: smId, body: JSON.stringify(element) });
      assert.equal(posted.idShortPath, "NewProp");
      await fails("PostSubmodelElement", { submodelId: smId, body: JSON.stringify(element) }, "conflict");
      assert.deepEqual(
        (await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: "NewProp" })).value,
        element,
      );
      const all = (await ok("GetAllSubmodelElements", { submodelId: smId })).value as any;
      assert.equal(all.items.at(-1).idShort, "NewProp", "appended at the end");

      const smc = sm.submodelElements.find((e: any) => e.modelType === "SubmodelElementCollection");
      if (smc) {
        await ok("PostSubmodelElement", { submodelId: smId, idShortPath: smc.idShort, body: JSON.stringify(element) });
        const got = (await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: smc.idShort })).value as any;
        assert.deepEqual(got.value.at(-1), element);
      }
      await fails(
        "PostSubmodelElement",
        { submodelId: smId, idShortPath: "NewProp", body: JSON.stringify({ ...element, idShort: "x" }) },
        "bad-request",
      );
      await fails(
        "PostSubmodelElement",
        { submodelId: smId, idShortPath: "Missing", body: JSON.stringify(element) },
        "not-found",
      );
      await fails("PostSubmodelElement", { submodelId: "urn:missing", body: JSON.stringify(element) }, "not-found");

      const replaced = { ...element, value: "replaced" };
      await ok("PutSubmodelElementByPath", {
        submodelId: smId,
        idShortPath: "NewProp",
        body: JSON.stringify(replaced),
      });
      assert.deepEqual(
        (await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: "NewProp" })).value,
        replaced,
      );
      await fails(
        "PutSubmodelElementByPath",
        { submodelId: smId, idShortPath: "NewProp", body: JSON.stringify({ ...replaced, idShort: "Other" }) },
        "bad-request",
      );
      await fails(
        "PutSubmodelElementByPath",
        { submodelId: smId, idShortPath: "Nope", body: JSON.stringify({ ...replaced, idShort: "Nope" }) },
        "not-found",
      );
      await ok("DeleteSubmodelElementByPath", { submodelId: smId, idShortPath: "NewProp" });
      await fails("GetSubmodelElementByPath", { submodelId: smId, idShortPath: "NewProp" }, "not-found");
      await fails("GetSubmodelElementByPath", { submodelId: smId, idShortPath: "a..b" }, "bad-request");
    });

    test("lists: a posted item gets the next index; deleting an item shifts the later ones", async () => {
      const list = sm.submodelElements.find((e: any) => e.modelType === "SubmodelElementList");
      const path = list.idShort;
      const before = (await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: path })).value as any;
      const count = before.value?.length ?? 0;
      const item = structuredClone(before.value?.[0]);
      assert.ok(item, "the example list has items");
      const posted = await ok("PostSubmodelElement", {
        submodelId: smId,
        idShortPath: path,
        body: JSON.stringify(item),
      });
      assert.equal(posted.idShortPath, `${path}[${count}]`);
      assert.deepEqual(
        (await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: `${path}[${count}]` })).value,
        item,
      );
      const second = await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: `${path}[1]` });
      const listRevision = (await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: path })).revision!;
      await ok("DeleteSubmodelElementByPath", { submodelId: smId, idShortPath: `${path}[0]` });
      // The later items shift without being rewritten (ADR 0020): same content, same revision; the
      // list's revision moves.
      const shifted = await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: `${path}[0]` });
      assert.deepEqual([shifted.value, shifted.revision], [second.value, second.revision]);
      assert.ok(
        (await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: path })).revision! > listRevision,
      );
      assert.equal(events.at(-1)?.idShortPath, `${path}[0]`);
      const afterDelete = (await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: path })).value as any;
      assert.equal(afterDelete.value.length, count);
      assert.deepEqual(afterDelete.value, [...before.value.slice(1), item]);
      await fails("GetSubmodelElementByPath", { submodelId: smId, idShortPath: `${path}[${count}]` }, "not-found");
    });

    test("PATCH $value: wrapped and bare forms, digits kept, invalid values change nothing", async () => {
      const path = prop.idShort;
      await ok("PatchSubmodelElementValueByPath", { submodelId: smId, idShortPath: path, body: `{"${path}": 1234}` });
      assert.equal(
        ((await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: path })).value as any).value,
        "1234",
      );
      await ok("PatchSubmodelElementValueByPath", { submodelId: smId, idShortPath: path, body: "77" });
      const read = await ok("GetSubmodelElementByPath", {
        submodelId: smId,
        idShortPath: path,
        modifiers: { content: "value" },
      });
      assert.deepEqual(read.value, { rawJson: `{"${path}":77}` });
      const eventsBefore = events.length;
      await fails(
        "PatchSubmodelElementValueByPath",
        { submodelId: smId, idShortPath: path, body: '"not a number"' },
        "validation",
      );
      await fails(
        "PatchSubmodelElementValueByPath",
        { submodelId: smId, idShortPath: path, body: "{bad" },
        "bad-request",
      );
      assert.equal(events.length, eventsBefore);
      assert.equal(
        ((await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: path })).value as any).value,
        "77",
      );

      const big = { modelType: "Property", idShort: "Big", valueType: "xs:decimal", value: "1" };
      await ok("PostSubmodelElement", { submodelId: smId, body: JSON.stringify(big) });
      await ok("PatchSubmodelElementValueByPath", {
        submodelId: smId,
        idShortPath: "Big",
        body: "12345678901234567890.123456789",
      });
      assert.deepEqual(
        (
          await ok("GetSubmodelElementByPath", {
            submodelId: smId,
            idShortPath: "Big",
            modifiers: { content: "value" },
          })
        ).value,
        { rawJson: '{"Big":12345678901234567890.123456789}' },
      );
    });

    test("a write whose caller's deadline passed before it was committed is answered unavailable (not run) and not written", async () => {
      const path = prop.idShort;
      await ok("PatchSubmodelElementValueByPath", { submodelId: smId, idShortPath: path, body: "11" });
      const eventsBefore = events.length;
      const late = await engine.execute(
        {
          type: "PatchSubmodelElementValueByPath",
          params: { submodelId: smId, idShortPath: path, body: "12" },
          origin: "test",
        },
        { deadline: Date.now() - 1 },
      );
      assert.equal(late.ok, false);
      assert.equal(!late.ok && late.error.code, "unavailable");
      const created = await engine.execute(
        {
          type: "PostSubmodelElement",
          params: {
            submodelId: smId,
            body: JSON.stringify({ modelType: "Property", idShort: "Late", valueType: "xs:int" }),
          },
          origin: "test",
        },
        { deadline: Date.now() - 1 },
      );
      assert.equal(!created.ok && created.error.code, "unavailable");
      assert.equal(events.length, eventsBefore, "no event: nothing was committed");
      assert.equal(
        ((await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: path })).value as any).value,
        "11",
      );
      await fails("GetSubmodelElementByPath", { submodelId: smId, idShortPath: "Late" }, "not-found");
      // A deadline still ahead changes nothing.
      const inTime = await engine.execute(
        {
          type: "PatchSubmodelElementValueByPath",
          params: { submodelId: smId, idShortPath: path, body: "13" },
          origin: "test",
        },
        { deadline: Date.now() + 60_000 },
      );
      assert.equal(inTime.ok, true);
    });

    test("PATCH $value from many concurrent writers: each applied once, in order, If-Match exact (group commit)", async () => {
      const path = prop.idShort;
      const first = events.length;
      const writes = Array.from({ length: 48 }, (_, i) =>
        // every seventh write is invalid: it fails alone, the others of its group still commit
        run("PatchSubmodelElementValueByPath", {
          submodelId: smId,
          idShortPath: path,
          body: i % 7 === 6 ? '"NaN"' : String(1000 + i),
        }),
      );
      const replies = await Promise.all(writes);
      const mine = events.slice(first).filter((e) => e.kind === "element.value-changed" && e.idShortPath === path);
      const succeeded = replies.filter((r) => r.ok);
      assert.equal(succeeded.length, 48 - 6);
      assert.ok(replies.every((r, i) => r.ok === (i % 7 !== 6)));
      assert.equal(mine.length, succeeded.length, "one event per applied write");
      // Events in seq order carry the values in the order the writes were handed in.
      const values = mine.map((e) => (e.payload as any).value);
      assert.deepEqual(
        values,
        replies.flatMap((r, i) => (r.ok ? [String(1000 + i)] : [])),
      );
      assert.deepEqual(
        succeeded.map((r) => r.revision),
        mine.map((e) => e.seq),
        "each reply names its own commit",
      );
      assert.equal(
        ((await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: path })).value as any).value,
        "1047",
      );

      // Writers that all read one ETag: exactly one wins, the others get 412.
      const etag = String((await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: path })).revision);
      const racing = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          run("PatchSubmodelElementValueByPath", {
            submodelId: smId,
            idShortPath: path,
            body: String(i),
            preconditions: { ifMatch: [etag] },
          }),
        ),
      );
      assert.equal(racing.filter((r) => r.ok).length, 1);
      assert.ok(racing.every((r) => r.ok || r.error.code === "precondition-failed"));
      // A placeholder revision is never an ETag a client can name.
      await fails(
        "PatchSubmodelElementValueByPath",
        { submodelId: smId, idShortPath: path, body: "5", preconditions: { ifMatch: ["-1"] } },
        "precondition-failed",
      );
    });

    test("a large submodel read again: unchanged answers stay equal, any change shows at once, per modifier", async () => {
      const id = "urn:test:large";
      const elements = Array.from({ length: 400 }, (_, i) => ({
        modelType: "Property",
        idShort: `P${i}`,
        valueType: "xs:int",
        value: String(i),
      }));
      const collection = {
        modelType: "SubmodelElementCollection",
        idShort: "C",
        value: [{ modelType: "Property", idShort: "Inner", valueType: "xs:string", value: "a" }],
      };
      await ok("PostSubmodel", {
        body: JSON.stringify({
          modelType: "Submodel",
          id,
          idShort: "Large",
          submodelElements: [...elements, collection],
        }),
      });
      const read = async (modifiers?: Record<string, string>) => {
        const reply = await ok("GetSubmodelById", { submodelId: id, ...(modifiers ? { modifiers } : {}) } as any);
        return { value: reply.value as any, revision: reply.revision };
      };
      const first = await read();
      const again = await read();
      assert.deepEqual(again, first);
      assert.equal(first.value.submodelElements.length, 401);
      const core = await read({ level: "core" });
      assert.equal(
        core.value.submodelElements.at(-1).value,
        undefined,
        "level=core leaves the collection's children out",
      );
      await ok("PatchSubmodelElementValueByPath", { submodelId: id, idShortPath: "P7", body: "7007" });
      const changed = await read();
      assert.ok(changed.revision! > first.revision!);
      assert.equal(changed.value.submodelElements[7].value, "7007");
      await ok("PatchSubmodelElementValueByPath", { submodelId: id, idShortPath: "C.Inner", body: '"b"' });
      assert.equal((await read()).value.submodelElements.at(-1).value[0].value, "b");
      assert.equal((await read({ level: "core" })).value.submodelElements[7].value, "7007");
      await ok("DeleteSubmodelElementByPath", { submodelId: id, idShortPath: "P0" });
      assert.equal((await read()).value.submodelElements.length, 400);
    });

    test("revisions: ETag-style preconditions checked in the engine; containers cover their subtree", async () => {
      const path = prop.idShort;
      const r1 = (await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: path })).revision!;
      await fails(
        "PatchSubmodelElementValueByPath",
        { submodelId: smId, idShortPath: path, body: "1", preconditions: { ifMatch: [String(r1 + 1000)] } },
        "precondition-failed",
      );
      const patched = await ok("PatchSubmodelElementValueByPath", {
        submodelId: smId,
        idShortPath: path,
        body: "1",
        preconditions: { ifMatch: [String(r1)] },
      });
      assert.ok(patched.revision! > r1);
      await fails(
        "PatchSubmodelElementValueByPath",
        { submodelId: smId, idShortPath: path, body: "2", preconditions: { ifMatch: [String(r1)] } },
        "precondition-failed",
      );
      await ok("PatchSubmodelElementValueByPath", {
        submodelId: smId,
        idShortPath: path,
        body: "2",
        preconditions: { ifMatch: ["*"] },
      });
      const smRev1 = (await ok("GetSubmodelById", { submodelId: smId })).revision!;
      const list = sm.submodelElements.find((e: any) => e.modelType === "SubmodelElementList");
      const listRev1 = (await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: list.idShort }))
        .revision!;
      const item = (await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: `${list.idShort}[0]` }))
        .value as any;
      await ok("PutSubmodelElementByPath", {
        submodelId: smId,
        idShortPath: `${list.idShort}[0]`,
        body: JSON.stringify(item),
      });
      assert.ok(
        (await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: list.idShort })).revision! > listRev1,
        "a child's change moves its parent's revision",
      );
      assert.ok((await ok("GetSubmodelById", { submodelId: smId })).revision! > smRev1);
      await fails(
        "DeleteSubmodelById",
        { submodelId: smId, preconditions: { ifMatch: [String(smRev1)] } },
        "precondition-failed",
      );
    });

    test("exactly one event per committed write, gap-free sequence, after the commit", async () => {
      const start = events.length;
      const seq0 = (await ok("GetSequence", {})).value.seq;
      await ok("PatchSubmodelElementValueByPath", { submodelId: smId, idShortPath: prop.idShort, body: "5" });
      await ok("PostSubmodelElement", {
        submodelId: smId,
        body: JSON.stringify({ modelType: "Property", idShort: "E1", valueType: "xs:int" }),
      });
      await ok("DeleteSubmodelElementByPath", { submodelId: smId, idShortPath: "E1" });
      await fails("DeleteSubmodelElementByPath", { submodelId: smId, idShortPath: "E1" }, "not-found");
      const mine = events.slice(start);
      assert.deepEqual(
        mine.map((e) => e.kind),
        ["element.value-changed", "element.created", "element.deleted"],
      );
      assert.deepEqual(
        mine.map((e) => e.seq),
        [seq0 + 1, seq0 + 2, seq0 + 3],
      );
      assert.equal(mine[0].idShortPath, prop.idShort);
      assert.equal(mine[0].id, smId);
      assert.equal(mine[0].origin, "test");
      assert.equal((mine[0].payload as any).value, "5");
    });

    test("concurrent writers: different elements never conflict; one If-Match wins per revision", async () => {
      const names = Array.from({ length: 20 }, (_, i) => `C${i}`);
      await Promise.all(
        names.map((n) =>
          ok("PostSubmodelElement", {
            submodelId: smId,
            body: JSON.stringify({ modelType: "Property", idShort: n, valueType: "xs:int", value: "0" }),
          }),
        ),
      );
      await Promise.all(
        names.map((n, i) =>
          ok("PatchSubmodelElementValueByPath", { submodelId: smId, idShortPath: n, body: String(i + 1) }),
        ),
      );
      for (const [i, n] of names.entries()) {
        assert.equal(
          ((await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: n })).value as any).value,
          String(i + 1),
        );
      }
      const rev = (await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: "C0" })).revision!;
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          run("PatchSubmodelElementValueByPath", {
            submodelId: smId,
            idShortPath: "C0",
            body: String(100 + i),
            preconditions: { ifMatch: [String(rev)] },
          }),
        ),
      );
      assert.equal(replies.filter((r) => r.ok).length, 1);
      assert.ok(replies.filter((r) => !r.ok).every((r) => !r.ok && r.error.code === "precondition-failed"));
    });

    test("concurrent POSTs that all read one ETag of their target (the submodel, a container): exactly one creates", async () => {
      const smc = sm.submodelElements.find((e: any) => e.modelType === "SubmodelElementCollection");
      const targets: [string | undefined, () => Promise<number>][] = [
        [undefined, async () => (await ok("GetSubmodelById", { submodelId: smId })).revision!],
        [
          smc.idShort,
          async () => (await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: smc.idShort })).revision!,
        ],
      ];
      for (const [idShortPath, revision] of targets) {
        const etag = String(await revision());
        const replies = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            run("PostSubmodelElement", {
              submodelId: smId,
              ...(idShortPath === undefined ? {} : { idShortPath }),
              body: JSON.stringify({ modelType: "Property", idShort: `Racing${i}`, valueType: "xs:int" }),
              preconditions: { ifMatch: [etag] },
            }),
          ),
        );
        assert.equal(replies.filter((r) => r.ok).length, 1, `into ${idShortPath ?? "the submodel"}`);
        assert.ok(replies.every((r) => r.ok || r.error.code === "precondition-failed"));
        await fails(
          "PostSubmodelElement",
          {
            submodelId: smId,
            ...(idShortPath === undefined ? {} : { idShortPath }),
            body: JSON.stringify({ modelType: "Property", idShort: "Late", valueType: "xs:int" }),
            preconditions: { ifNoneMatch: ["*"] },
          },
          "precondition-failed",
        );
      }
    });

    test("concurrent writes to one element without If-Match all succeed (last writer wins)", async () => {
      const replies = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          run("PatchSubmodelElementValueByPath", { submodelId: smId, idShortPath: prop.idShort, body: String(i) }),
        ),
      );
      assert.deepEqual(
        replies.filter((r) => !r.ok),
        [],
      );
      const final = (
        (await ok("GetSubmodelElementByPath", { submodelId: smId, idShortPath: prop.idShort })).value as any
      ).value;
      assert.ok(Number(final) >= 0 && Number(final) < 40);
    });

    test("submodel below a shell: only when the shell references it", async () => {
      const shell = model.assetAdministrationShells.find((s) =>
        s.submodels?.some((r: any) => r.keys[0].value === smId),
      )!;
      await ok("GetSubmodelById", { submodelId: smId, aasId: shell.id });
      const other = model.assetAdministrationShells.find(
        (s) => !s.submodels?.some((r: any) => r.keys[0].value === smId),
      )!;
      await fails("GetSubmodelById", { submodelId: smId, aasId: other.id }, "not-found");
      await fails(
        "GetSubmodelElementByPath",
        { submodelId: smId, aasId: "urn:nope", idShortPath: prop.idShort },
        "not-found",
      );
    });

    test("loading: identical duplicates collapse, conflicting duplicates fail, onlyIfEmpty skips", async () => {
      await repository.clear();
      const env = exampleModel();
      env.submodels.push(structuredClone(env.submodels[0]));
      const loaded = await ok("LoadEnvironment", { body: JSON.stringify(env) });
      assert.equal(loaded.value.submodels, model.submodels.length);
      await repository.clear();
      env.submodels[env.submodels.length - 1].idShort = "Different";
      await fails("LoadEnvironment", { body: JSON.stringify(env) }, "validation");
      const skipped = await ok("LoadEnvironment", { body: EXAMPLE_MODEL_TEXT, onlyIfEmpty: true });
      assert.equal(skipped.value.skipped, false);
      assert.equal((await ok("LoadEnvironment", { body: EXAMPLE_MODEL_TEXT, onlyIfEmpty: true })).value.skipped, true);
    });
  });
}
