/**
 * Authorization in the engine (docs/adr/0024), run against every Repository implementation: every
 * right on every object kind, lists that leave out what the caller may not read with exact paging,
 * submodels shown in part, and the two defaults (no rules: everything; no principal: the system).
 */

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { DEFAULT_AASX_LIMITS, readAasx } from "../aas/index.ts";
import type { Command, CommandResult, CommandType, Principal, Reply } from "../contracts/index.ts";
import { compileAccessPolicy, createEngine, type Engine, type Repository } from "../engine/index.ts";
import {
  ACCESS_KINDS_PRINCIPAL,
  ACCESS_KINDS_RULES,
  ACCESS_KINDS_VALUE,
  ACCESS_SM_KINDS,
  accessKindsSubmodel,
} from "./access-kinds-model.ts";
import {
  ACCESS_CD_1,
  ACCESS_CD_2,
  ACCESS_MANY,
  ACCESS_RULES,
  ACCESS_SHELL_A,
  ACCESS_SHELL_B,
  ACCESS_SM_1,
  ACCESS_SM_2,
  accessModel,
  ACCESS_PRINCIPALS as who,
} from "./access-model.ts";

export function accessContract(name: string, makeRepository: () => Promise<Repository>): void {
  describe(`access rules in the engine on ${name}`, () => {
    let repository: Repository;
    let engine: Engine;
    const policy = compileAccessPolicy(ACCESS_RULES);

    const run = <T extends CommandType>(
      principal: Principal | undefined,
      type: T,
      params: Command<T>["params"],
    ): Promise<Reply<CommandResult<T>>> =>
      engine.execute({ type, params, origin: "test", ...(principal ? { principal } : {}) } as Command<T>);
    async function allowed<T extends CommandType>(
      principal: Principal | undefined,
      type: T,
      params: Command<T>["params"],
    ): Promise<CommandResult<T>> {
      const reply = await run(principal, type, params);
      assert.ok(
        reply.ok,
        `${type} as ${principal?.name ?? principal?.kind ?? "system"}: ${JSON.stringify(!reply.ok && reply.error)}`,
      );
      return reply.value;
    }
    async function denied<T extends CommandType>(
      principal: Principal,
      type: T,
      params: Command<T>["params"],
    ): Promise<void> {
      const reply = await run(principal, type, params);
      assert.equal(reply.ok, false, `${type} as ${principal.name ?? principal.kind} should be forbidden`);
      if (!reply.ok) assert.equal(reply.error.code, "forbidden", reply.error.message);
    }
    const ids = (paged: { items: unknown[] }) => paged.items.map((item) => (item as { id: string }).id);
    const body = (value: unknown) => JSON.stringify(value);

    before(async () => {
      repository = await makeRepository();
    });
    after(async () => {
      await repository.close();
    });
    beforeEach(async () => {
      await repository.clear();
      engine = createEngine({ repository, access: policy });
      // The system (no principal) seeds: never checked.
      await allowed(undefined, "LoadEnvironment", { body: body(accessModel()) });
    });

    test("without rules every principal may do everything (today's behaviour)", async () => {
      const open = createEngine({ repository });
      const reply = await open.execute({
        type: "DeleteSubmodelById",
        params: { submodelId: ACCESS_SM_2 },
        principal: who.anonymous,
      });
      assert.ok(reply.ok);
      await open.close();
    });

    test("shells: READ, CREATE, UPDATE, DELETE and the shell's parts", async () => {
      await allowed(who.reader, "GetAssetAdministrationShellById", { aasId: ACCESS_SHELL_A });
      await allowed(who.reader, "GetSubmodelById", { aasId: ACCESS_SHELL_A, submodelId: ACCESS_SM_1 });
      await denied(who.reader, "GetAssetAdministrationShellById", { aasId: ACCESS_SHELL_B });
      await denied(who.anonymous, "GetAssetAdministrationShellById", { aasId: ACCESS_SHELL_B });
      await denied(who.stranger, "GetAssetAdministrationShellById", { aasId: ACCESS_SHELL_A });
      await allowed(who.reader, "GetAllSubmodelReferences", { aasId: ACCESS_SHELL_A });
      await allowed(who.reader, "GetAllAssetLinksById", { aasId: ACCESS_SHELL_A });
      await denied(who.reader, "GetAssetInformation", { aasId: ACCESS_SHELL_B });
      const shell = {
        modelType: "AssetAdministrationShell",
        id: "urn:access:shell:new",
        assetInformation: { assetKind: "Instance", globalAssetId: "urn:x" },
      };
      await denied(who.reader, "PostAssetAdministrationShell", { body: body(shell) });
      await denied(who.writer, "PostAssetAdministrationShell", { body: body({ ...shell, id: "urn:elsewhere:shell" }) });
      await allowed(who.writer, "PostAssetAdministrationShell", { body: body(shell) });
      await denied(who.reader, "PutAssetAdministrationShellById", {
        aasId: ACCESS_SHELL_A,
        body: body({ ...shell, id: ACCESS_SHELL_A }),
      });
      await allowed(who.writer, "PutAssetAdministrationShellById", {
        aasId: ACCESS_SHELL_A,
        body: body({ ...shell, id: ACCESS_SHELL_A }),
      });
      await denied(who.reader, "PutAssetInformation", {
        aasId: ACCESS_SHELL_A,
        body: body({ assetKind: "Instance", globalAssetId: "urn:y" }),
      });
      await allowed(who.writer, "PutAssetInformation", {
        aasId: ACCESS_SHELL_A,
        body: body({ assetKind: "Instance", globalAssetId: "urn:y" }),
      });
      await denied(who.reader, "PostAllAssetLinksById", {
        aasId: ACCESS_SHELL_A,
        body: body([{ name: "serial", value: "1" }]),
      });
      await allowed(who.writer, "PostAllAssetLinksById", {
        aasId: ACCESS_SHELL_A,
        body: body([{ name: "serial", value: "1" }]),
      });
      await denied(who.reader, "DeleteAssetAdministrationShellById", { aasId: "urn:access:shell:new" });
      await allowed(who.writer, "DeleteAssetAdministrationShellById", { aasId: "urn:access:shell:new" });
      // Shell rights do not imply submodel rights.
      await denied(who.writer, "GetSubmodelById", { submodelId: ACCESS_SM_1 });
      // Below a shell, the shell must be readable too.
      await denied(who.partial, "GetSubmodelElementByPath", {
        aasId: ACCESS_SHELL_A,
        submodelId: ACCESS_SM_1,
        idShortPath: "C.X",
      });
    });

    test("submodels: READ by id, CREATE/UPDATE/DELETE by semanticId, and a semanticId change needs the right on the result", async () => {
      await allowed(who.reader, "GetSubmodelById", { submodelId: ACCESS_SM_1 });
      await denied(who.reader, "GetSubmodelById", { submodelId: ACCESS_SM_2 });
      await denied(who.reader, "PatchSubmodelById", { submodelId: ACCESS_SM_1, body: body({ idShort: "Renamed" }) });
      await allowed(who.writer, "PatchSubmodelById", { submodelId: ACCESS_SM_1, body: body({ idShort: "Renamed" }) });
      await denied(who.writer, "PatchSubmodelById", {
        submodelId: ACCESS_SM_1,
        body: body({
          semanticId: { type: "ExternalReference", keys: [{ type: "GlobalReference", value: "urn:other" }] },
        }),
      });
      await denied(who.writer, "PatchSubmodelById", { submodelId: ACCESS_SM_2, body: body({ idShort: "Renamed" }) });
      const fresh = accessModel().submodels as Record<string, unknown>[];
      const nameplate = fresh[0]!;
      await denied(who.writer, "PutSubmodelById", {
        submodelId: ACCESS_SM_1,
        body: body({ ...nameplate, semanticId: undefined }),
      });
      await allowed(who.writer, "PutSubmodelById", { submodelId: ACCESS_SM_1, body: body(nameplate) });
      await denied(who.writer, "PutSubmodelById", { submodelId: ACCESS_SM_2, body: body(fresh[1]) });
      await allowed(who.writer, "PostSubmodel", { body: body({ ...nameplate, id: "urn:access:sm:new" }) });
      await denied(who.writer, "PostSubmodel", { body: body({ ...fresh[1], id: "urn:access:sm:new2" }) });
      await denied(who.reader, "PostSubmodel", { body: body({ ...nameplate, id: "urn:access:sm:new3" }) });
      // Unreadable input: refused to whoever may not create submodels, a 400 for the others.
      await denied(who.reader, "PostSubmodel", { body: "{ not json" });
      const malformed = await run(who.writer, "PostSubmodel", { body: "{ not json" });
      assert.equal(!malformed.ok && malformed.error.code, "bad-request");
      await denied(who.reader, "DeleteSubmodelById", { submodelId: "urn:access:sm:new" });
      await allowed(who.writer, "DeleteSubmodelById", { submodelId: "urn:access:sm:new" });
      await denied(who.writer, "DeleteSubmodelById", { submodelId: ACCESS_SM_2 });
      // A submodel-scoped right covers its elements.
      await allowed(who.writer, "PatchSubmodelElementValueByPath", {
        submodelId: ACCESS_SM_1,
        idShortPath: "C.Y",
        body: "5",
      });
      await allowed(who.reader, "GetSubmodelElementByPath", { submodelId: ACCESS_SM_1, idShortPath: "L[1]" });
    });

    test("a malformed idShortPath is a 400 whoever asks, before any right is looked at", async () => {
      // A partial reader got 403 where the admin got 400: the answer told callers apart, not paths.
      for (const idShortPath of ["L[01]", "L[+1]", "C..X", "C.", "L[0x1]"])
        for (const principal of [who.partial, who.reader, who.anonymous]) {
          const reply = await run(principal, "GetSubmodelElementByPath", { submodelId: ACCESS_SM_1, idShortPath });
          assert.equal(
            !reply.ok && reply.error.code,
            "bad-request",
            `${idShortPath} as ${principal.name ?? principal.kind}`,
          );
          const write = await run(principal, "PatchSubmodelElementValueByPath", {
            submodelId: ACCESS_SM_1,
            idShortPath,
            body: "1",
          });
          assert.equal(!write.ok && write.error.code, "bad-request", `PATCH ${idShortPath}`);
        }
    });

    test("elements: an idShortPath prefix covers that element and below, on segment boundaries", async () => {
      await allowed(who.partial, "GetSubmodelElementByPath", { submodelId: ACCESS_SM_1, idShortPath: "C.X" });
      await denied(who.partial, "GetSubmodelElementByPath", { submodelId: ACCESS_SM_1, idShortPath: "C.XY" });
      await denied(who.partial, "GetSubmodelElementByPath", { submodelId: ACCESS_SM_1, idShortPath: "P" });
      await allowed(who.partial, "PatchSubmodelElementValueByPath", {
        submodelId: ACCESS_SM_1,
        idShortPath: "C.X",
        body: "99",
      });
      await denied(who.partial, "PatchSubmodelElementValueByPath", {
        submodelId: ACCESS_SM_1,
        idShortPath: "C.XY",
        body: "99",
      });
      await denied(who.partial, "PutSubmodelElementByPath", {
        submodelId: ACCESS_SM_1,
        idShortPath: "C",
        body: body({ modelType: "SubmodelElementCollection", idShort: "C" }),
      });
      await denied(who.partial, "PatchSubmodelById", {
        submodelId: ACCESS_SM_1,
        content: "value",
        body: body({ P: "3" }),
      });
      // UPDATE of the covered element in every form.
      await allowed(who.partial, "PutSubmodelElementByPath", {
        submodelId: ACCESS_SM_1,
        idShortPath: "C.X",
        body: body({ modelType: "Property", idShort: "X", valueType: "xs:int", value: "7" }),
      });
      await allowed(who.partial, "PatchSubmodelElementByPath", {
        submodelId: ACCESS_SM_1,
        idShortPath: "C.X",
        body: body({ value: "8" }),
      });
      // An X.509 identity by its subject.
      await allowed(who.device, "PatchSubmodelElementValueByPath", {
        submodelId: ACCESS_SM_1,
        idShortPath: "P",
        body: "4",
      });
      await denied(who.device, "PatchSubmodelElementValueByPath", {
        submodelId: ACCESS_SM_1,
        idShortPath: "C.X",
        body: "4",
      });
      // CREATE and DELETE of elements: the writer's semanticId right covers them; the reader has none.
      const element = body({ modelType: "Property", idShort: "New", valueType: "xs:int", value: "1" });
      await denied(who.reader, "PostSubmodelElement", { submodelId: ACCESS_SM_1, idShortPath: "C", body: element });
      await denied(who.partial, "PostSubmodelElement", { submodelId: ACCESS_SM_1, idShortPath: "C", body: element });
      await allowed(who.writer, "PostSubmodelElement", { submodelId: ACCESS_SM_1, idShortPath: "C", body: element });
      await allowed(who.writer, "PostSubmodelElement", {
        submodelId: ACCESS_SM_1,
        idShortPath: "L",
        body: body({ modelType: "Property", valueType: "xs:int", value: "22" }),
      });
      await denied(who.reader, "DeleteSubmodelElementByPath", { submodelId: ACCESS_SM_1, idShortPath: "C.New" });
      await denied(who.partial, "DeleteSubmodelElementByPath", { submodelId: ACCESS_SM_1, idShortPath: "C.X" });
      await allowed(who.writer, "DeleteSubmodelElementByPath", { submodelId: ACCESS_SM_1, idShortPath: "C.New" });
    });

    test("a partial READ shows the submodel with only the covered elements, in every content form", async () => {
      const submodel = (await allowed(who.partial, "GetSubmodelById", { submodelId: ACCESS_SM_1 })) as {
        idShort: string;
        submodelElements: { idShort: string; value?: unknown }[];
      };
      assert.equal(submodel.idShort, "Nameplate");
      assert.deepEqual(
        submodel.submodelElements.map((e) => e.idShort),
        ["C"],
      );
      assert.deepEqual(
        (submodel.submodelElements[0]!.value as { idShort: string }[]).map((e) => e.idShort),
        ["X"],
      );
      const value = await allowed(who.partial, "GetSubmodelById", {
        submodelId: ACCESS_SM_1,
        modifiers: { content: "value" },
      });
      assert.deepEqual(JSON.parse((value as { rawJson: string }).rawJson), { C: { X: 10 } });
      const metadata = (await allowed(who.partial, "GetSubmodelById", {
        submodelId: ACCESS_SM_1,
        modifiers: { content: "metadata" },
      })) as Record<string, unknown>;
      assert.equal(metadata.id, ACCESS_SM_1);
      assert.deepEqual(
        await allowed(who.partial, "GetSubmodelById", { submodelId: ACCESS_SM_1, modifiers: { content: "path" } }),
        ["C", "C.X"],
      );
      const list = await allowed(who.partial, "GetAllSubmodelElements", { submodelId: ACCESS_SM_1 });
      assert.deepEqual(
        list.items.map((e) => (e as { idShort: string }).idShort),
        ["C"],
      );
      assert.deepEqual(
        (
          await allowed(who.partial, "GetAllSubmodelElements", {
            submodelId: ACCESS_SM_1,
            modifiers: { content: "path" },
          })
        ).items,
        ["C", "C.X"],
      );
      const collection = (await allowed(who.partial, "GetSubmodelElementByPath", {
        submodelId: ACCESS_SM_1,
        idShortPath: "C",
      })) as { value: { idShort: string }[] };
      assert.deepEqual(
        collection.value.map((e) => e.idShort),
        ["X"],
      );
      // The lists of submodels show the same part.
      const all = await allowed(who.partial, "GetAllSubmodels", {});
      assert.deepEqual(ids(all as { items: unknown[] }), [ACCESS_SM_1]);
      assert.deepEqual(
        ((all.items[0] as { submodelElements: unknown[] }).submodelElements as { idShort: string }[]).map(
          (e) => e.idShort,
        ),
        ["C"],
      );
      assert.deepEqual((await allowed(who.partial, "GetAllSubmodels", { modifiers: { content: "path" } })).items, [
        "C",
        "C.X",
      ]);
      // Serialization carries submodels only whole: none for a partial reader.
      const environment = await allowed(who.partial, "GenerateSerializationByIds", { format: "json" });
      const serialized = JSON.parse(Buffer.from(environment.contentBase64, "base64").toString("utf8")) as {
        submodels?: unknown[];
      };
      assert.equal(serialized.submodels?.length ?? 0, 0);
    });

    test("an element on the way to a grant is shown only as a container that holds it, without its own value", async () => {
      const kinds = createEngine({ repository, access: compileAccessPolicy(ACCESS_KINDS_RULES) });
      try {
        await allowed(undefined, "PostSubmodel", { body: body(accessKindsSubmodel()) });
        const as = <T extends CommandType>(type: T, params: Command<T>["params"]) =>
          kinds.execute({ type, params, origin: "test", principal: ACCESS_KINDS_PRINCIPAL } as Command<T>);
        const read = async <T extends CommandType>(type: T, params: Command<T>["params"]) => {
          const reply = await as(type, params);
          assert.ok(reply.ok, `${type}: ${JSON.stringify(!reply.ok && reply.error)}`);
          return reply.value;
        };
        const raw = (value: unknown) => JSON.parse((value as { rawJson: string }).rawJson) as unknown;
        const submodelId = ACCESS_SM_KINDS;
        // A Property holds no `C.Ok` nor `L[0]`, a collection no `N[0]`: refused like any element
        // not granted (a black-box finding: they were answered whole, with their values).
        for (const idShortPath of ["C", "L", "N"]) {
          const reply = await as("GetSubmodelElementByPath", { submodelId, idShortPath });
          assert.equal(!reply.ok && reply.error.code, "forbidden", idShortPath);
          const value = await as("GetSubmodelElementByPath", {
            submodelId,
            idShortPath,
            modifiers: { content: "value" },
          });
          assert.equal(!value.ok && value.error.code, "forbidden", `${idShortPath}/$value`);
        }
        const whole = await read("GetSubmodelById", { submodelId, modifiers: { content: "value" } });
        assert.deepEqual(raw(whole), ACCESS_KINDS_VALUE);
        const normal = JSON.stringify(await read("GetSubmodelById", { submodelId }));
        assert.doesNotMatch(normal, /SECRET/);
        const elements = await read("GetAllSubmodelElements", { submodelId });
        assert.deepEqual(
          elements.items.map((e) => (e as { idShort: string }).idShort),
          ["E", "R", "K", "M"],
        );
        assert.doesNotMatch(JSON.stringify(elements), /SECRET/);
        const paths = ["E", "E.Ok", "R", "R.Ok", "K", "K.Ok", "M", "M[0]"];
        assert.deepEqual(await read("GetSubmodelById", { submodelId, modifiers: { content: "path" } }), paths);
        assert.deepEqual(
          (await read("GetAllSubmodelElements", { submodelId, modifiers: { content: "path" } })).items,
          paths,
        );
        // The Entity shows its statement, not its asset ids; the relationship its annotation, not
        // first and second; the collection and list as before.
        const entity = (await read("GetSubmodelElementByPath", { submodelId, idShortPath: "E" })) as Record<
          string,
          unknown
        >;
        assert.equal(entity.globalAssetId, undefined);
        assert.equal(entity.specificAssetIds, undefined);
        assert.deepEqual(
          (entity.statements as { idShort: string }[]).map((e) => e.idShort),
          ["Ok"],
        );
        const relationship = JSON.stringify(await read("GetSubmodelElementByPath", { submodelId, idShortPath: "R" }));
        assert.doesNotMatch(relationship, /SECRET/);
        const entityValue = await read("GetSubmodelElementByPath", {
          submodelId,
          idShortPath: "E",
          modifiers: { content: "value" },
        });
        assert.deepEqual(raw(entityValue), { E: ACCESS_KINDS_VALUE.E });
        const metadata = await read("GetSubmodelElementByPath", {
          submodelId,
          idShortPath: "E",
          modifiers: { content: "metadata" },
        });
        assert.doesNotMatch(JSON.stringify(metadata), /SECRET/);
        assert.deepEqual(
          await read("GetSubmodelElementByPath", { submodelId, idShortPath: "M", modifiers: { content: "path" } }),
          ["M", "M[0]"],
        );
        assert.deepEqual(
          raw(
            await read("GetSubmodelElementByPath", { submodelId, idShortPath: "K", modifiers: { content: "value" } }),
          ),
          {
            K: { Ok: "k-ok" },
          },
        );
        // Nothing at a path on the way is refused as a leaf there is: the answer does not tell them apart.
        await allowed(undefined, "DeleteSubmodelElementByPath", { submodelId, idShortPath: "K" });
        const gone = await as("GetSubmodelElementByPath", { submodelId, idShortPath: "K" });
        assert.equal(!gone.ok && gone.error.code, "forbidden");
      } finally {
        await kinds.close();
      }
    });

    test("lists hold only what the caller may read, and paging stays exact when most items are hidden", async () => {
      assert.deepEqual(ids(await allowed(who.reader, "GetAllAssetAdministrationShells", {})), [ACCESS_SHELL_A]);
      assert.deepEqual(ids(await allowed(who.anonymous, "GetAllAssetAdministrationShells", {})), []);
      assert.deepEqual(ids(await allowed(who.stranger, "GetAllAssetAdministrationShells", {})), []);
      assert.deepEqual((await allowed(who.reader, "GetAllAssetAdministrationShellIdsByAssetLink", {})).items, [
        ACCESS_SHELL_A,
      ]);
      // authenticated: any non-anonymous principal.
      assert.deepEqual(ids(await allowed(who.reader, "GetAllConceptDescriptions", {})), [ACCESS_CD_1, ACCESS_CD_2]);
      assert.deepEqual(ids(await allowed(who.writer, "GetAllConceptDescriptions", {})), [ACCESS_CD_2]);
      assert.deepEqual(ids(await allowed(who.anonymous, "GetAllConceptDescriptions", {})), []);
      assert.deepEqual(ids(await allowed(who.admin, "GetAllConceptDescriptions", {})), [ACCESS_CD_1, ACCESS_CD_2]);
      // 50 + 2 submodels, anonymous may read 5: pages of 2 are full until the data ends.
      const readable = ACCESS_MANY.filter((id) => id.endsWith("7"));
      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor: string | undefined;
      do {
        const page = await allowed(who.anonymous, "GetAllSubmodels", {
          page: { limit: 2, ...(cursor ? { cursor } : {}) },
        });
        seen.push(...ids(page));
        sizes.push(page.items.length);
        cursor = page.cursor;
      } while (cursor !== undefined);
      assert.deepEqual(seen, readable);
      assert.deepEqual(sizes, [2, 2, 1]);
      // A page that takes the last readable item has no cursor, though hidden items follow: no empty page.
      const whole = await allowed(who.anonymous, "GetAllSubmodels", { page: { limit: 5 } });
      assert.deepEqual([ids(whole), whole.cursor], [readable, undefined]);
      const partialElements = await allowed(who.partial, "GetAllSubmodelElements", {
        submodelId: ACCESS_SM_1,
        page: { limit: 1 },
      });
      assert.deepEqual([partialElements.items.length, partialElements.cursor], [1, undefined]);
      const firstPath = await allowed(who.partial, "GetAllSubmodelElements", {
        submodelId: ACCESS_SM_1,
        page: { limit: 1 },
        modifiers: { content: "path" },
      });
      assert.deepEqual(firstPath.items, ["C"]);
      // The cursor names no element the caller may not see (P, before C, is hidden from it): a
      // repository cursor spells its element's idShort (a black-box finding).
      const resumeAt = (JSON.parse(Buffer.from(firstPath.cursor!, "base64url").toString("utf8")) as { r?: string }).r;
      const named = resumeAt === undefined ? "" : Buffer.from(resumeAt, "base64url").toString("utf8");
      assert.doesNotMatch(named, /\x01P$/, "the cursor names the hidden element P");
      // A made-up cursor naming a hidden path resumes as one naming no path: hidden names cannot be
      // told apart from names that do not exist.
      const forged = (p: string) => Buffer.from(JSON.stringify({ p }), "utf8").toString("base64url");
      const resumed = async (p: string) =>
        (
          await allowed(who.partial, "GetAllSubmodelElements", {
            submodelId: ACCESS_SM_1,
            page: { limit: 5, cursor: forged(p) },
            modifiers: { content: "path" },
          })
        ).items;
      assert.deepEqual(await resumed("C.XY"), await resumed("C.XZ"));
      assert.deepEqual(await resumed("L[1]"), await resumed("L[7]"));
      const lastPath = await allowed(who.partial, "GetAllSubmodelElements", {
        submodelId: ACCESS_SM_1,
        page: { limit: 1, cursor: firstPath.cursor! },
        modifiers: { content: "path" },
      });
      assert.deepEqual([lastPath.items, lastPath.cursor], [["C.X"], undefined]);
      assert.deepEqual(
        (await allowed(who.reader, "GetAllAssetAdministrationShells", { page: { limit: 1 } })).cursor,
        undefined,
      );
      // $path across submodels: the same five, one path each.
      const paths = await allowed(who.anonymous, "GetAllSubmodels", {
        page: { limit: 4 },
        modifiers: { content: "path" },
      });
      assert.deepEqual(paths.items, ["V", "V", "V", "V"]);
      assert.ok(paths.cursor);
      const rest = await allowed(who.anonymous, "GetAllSubmodels", {
        page: { limit: 4, cursor: paths.cursor },
        modifiers: { content: "path" },
      });
      assert.deepEqual(rest.items, ["V"]);
      assert.equal(rest.cursor, undefined);
      // Whole-repository serialization: the readable identifiables only.
      const environment = await allowed(who.reader, "GenerateSerializationByIds", { format: "json" });
      const serialized = JSON.parse(Buffer.from(environment.contentBase64, "base64").toString("utf8")) as Record<
        string,
        { id: string }[]
      >;
      assert.deepEqual(
        serialized.assetAdministrationShells!.map((s) => s.id),
        [ACCESS_SHELL_A],
      );
      assert.deepEqual(
        serialized.submodels!.map((s) => s.id),
        [ACCESS_SM_1],
      );
      assert.deepEqual(
        serialized.conceptDescriptions!.map((s) => s.id),
        [ACCESS_CD_1, ACCESS_CD_2],
      );
      await denied(who.reader, "GenerateSerializationByIds", { format: "json", submodelIds: [ACCESS_SM_2] });
      await allowed(who.reader, "GenerateSerializationByIds", {
        format: "json",
        aasIds: [ACCESS_SHELL_A],
        submodelIds: [ACCESS_SM_1],
      });
      assert.deepEqual((await allowed(who.reader, "GetAllAASXPackageIds", {})).items, []);
    });

    test("file attachments are READ and UPDATE of the element; thumbnails READ and UPDATE of the shell", async () => {
      const file = { fileName: "a.txt", contentType: "text/plain", contentBase64: Buffer.from("a").toString("base64") };
      const notRefused = async <T extends CommandType>(principal: Principal, type: T, params: Command<T>["params"]) => {
        const reply = await run(principal, type, params);
        assert.ok(
          reply.ok || reply.error.code !== "forbidden",
          `${type} as ${principal.name} was refused: ${!reply.ok && reply.error.message}`,
        );
      };
      await denied(who.partial, "GetFileByPath", { submodelId: ACCESS_SM_1, idShortPath: "P" });
      await denied(who.partial, "PutFileByPath", { submodelId: ACCESS_SM_1, idShortPath: "P", file });
      await denied(who.partial, "DeleteFileByPath", { submodelId: ACCESS_SM_1, idShortPath: "C.XY" });
      // Granted: the request reaches the handler (which finds no File element there).
      await notRefused(who.partial, "GetFileByPath", { submodelId: ACCESS_SM_1, idShortPath: "C.X" });
      await notRefused(who.partial, "PutFileByPath", { submodelId: ACCESS_SM_1, idShortPath: "C.X", file });
      await notRefused(who.writer, "DeleteFileByPath", { submodelId: ACCESS_SM_1, idShortPath: "P" });
      await denied(who.anonymous, "GetThumbnail", { aasId: ACCESS_SHELL_A });
      await denied(who.reader, "PutThumbnail", { aasId: ACCESS_SHELL_A, file });
      await denied(who.reader, "DeleteThumbnail", { aasId: ACCESS_SHELL_A });
      await notRefused(who.reader, "GetThumbnail", { aasId: ACCESS_SHELL_A });
      await allowed(who.writer, "PutThumbnail", {
        aasId: ACCESS_SHELL_A,
        file: { ...file, fileName: "a.png", contentType: "image/png" },
      });
      await allowed(who.writer, "DeleteThumbnail", { aasId: ACCESS_SHELL_A });
      // Submodel references are the shell's: UPDATE of the shell, no right on the submodel needed.
      await denied(who.reader, "DeleteSubmodelReferenceById", { aasId: ACCESS_SHELL_A, submodelId: ACCESS_SM_1 });
      await allowed(who.writer, "DeleteSubmodelReferenceById", { aasId: ACCESS_SHELL_A, submodelId: ACCESS_SM_1 });
      await allowed(who.writer, "PostSubmodelReference", {
        aasId: ACCESS_SHELL_A,
        body: body({ type: "ModelReference", keys: [{ type: "Submodel", value: ACCESS_SM_2 }] }),
      });
    });

    test("an AASX serialization carries another element's or shell's upload only for a caller who may read that owner", async () => {
      // Admin uploads to a File the anonymous caller cannot read, then points a File it can read at
      // the stored path (anyone with UPDATE there could): as GET …/attachment, the package leaves it out.
      const hidden = ACCESS_MANY[8]!;
      const readable = ACCESS_MANY[7]!;
      const file = (name: string, text: string) => ({
        fileName: name,
        contentType: "text/plain",
        contentBase64: Buffer.from(text).toString("base64"),
      });
      const element = (idShort: string, value?: string) =>
        body({ modelType: "File", idShort, contentType: "text/plain", ...(value ? { value } : {}) });
      await allowed(who.admin, "PostSubmodelElement", { submodelId: hidden, body: element("Secret") });
      await allowed(who.admin, "PutFileByPath", {
        submodelId: hidden,
        idShortPath: "Secret",
        file: file("secret.txt", "the secret"),
      });
      const secretPath = (
        (await allowed(who.admin, "GetSubmodelElementByPath", { submodelId: hidden, idShortPath: "Secret" })) as {
          value: string;
        }
      ).value;
      await allowed(who.admin, "PostSubmodelElement", { submodelId: readable, body: element("Pointer", secretPath) });
      const packageOf = async (principal: Principal, params: Command<"GenerateSerializationByIds">["params"]) => {
        const reply = await allowed(principal, "GenerateSerializationByIds", params);
        return {
          ...readAasx(Buffer.from(reply.contentBase64, "base64"), DEFAULT_AASX_LIMITS),
          warnings: reply.warnings,
        };
      };
      const anonymous = await packageOf(who.anonymous, { format: "aasx", submodelIds: [readable] });
      assert.deepEqual(anonymous.files, [], "the secret is not in the anonymous caller's package");
      assert.match(String(anonymous.warnings), new RegExp(secretPath.replaceAll(".", "\\.")));
      const admin = await packageOf(who.admin, { format: "aasx", submodelIds: [readable] });
      assert.deepEqual(
        admin.files.map((part) => Buffer.from(part.bytes).toString()),
        ["the secret"],
        "whoever may read the owner gets it",
      );

      // The same through a shell's defaultThumbnail: shell A names shell B's uploaded thumbnail.
      await allowed(who.admin, "PutThumbnail", { aasId: ACCESS_SHELL_B, file: file("b.png", "shell b's picture") });
      const shellB = (await allowed(who.admin, "GetAssetInformation", { aasId: ACCESS_SHELL_B })) as {
        defaultThumbnail: unknown;
      };
      const shellA = (await allowed(who.admin, "GetAssetInformation", { aasId: ACCESS_SHELL_A })) as object;
      await allowed(who.admin, "PutAssetInformation", {
        aasId: ACCESS_SHELL_A,
        body: body({ ...shellA, defaultThumbnail: shellB.defaultThumbnail }),
      });
      const reader = await packageOf(who.reader, { format: "aasx", aasIds: [ACCESS_SHELL_A] });
      assert.equal(reader.thumbnail, undefined, "shell B's thumbnail is not in the reader's package");
      assert.deepEqual(reader.files, []);
      const adminA = await packageOf(who.admin, { format: "aasx", aasIds: [ACCESS_SHELL_A] });
      assert.equal(Buffer.from(adminA.thumbnail!.bytes).toString(), "shell b's picture");
    });

    test("concept descriptions: READ, CREATE, UPDATE, DELETE", async () => {
      await allowed(who.reader, "GetConceptDescriptionById", { cdId: ACCESS_CD_1 });
      await denied(who.anonymous, "GetConceptDescriptionById", { cdId: ACCESS_CD_1 });
      await denied(who.writer, "GetConceptDescriptionById", { cdId: ACCESS_CD_1 });
      await allowed(who.device, "GetConceptDescriptionById", { cdId: ACCESS_CD_2 });
      const cd = { modelType: "ConceptDescription", id: "urn:access:cd:new" };
      await denied(who.reader, "PostConceptDescription", { body: body(cd) });
      await allowed(who.writer, "PostConceptDescription", { body: body(cd) });
      await denied(who.writer, "PostConceptDescription", { body: body({ ...cd, id: "urn:elsewhere:cd" }) });
      await denied(who.reader, "PutConceptDescriptionById", {
        cdId: ACCESS_CD_1,
        body: body({ ...cd, id: ACCESS_CD_1 }),
      });
      await allowed(who.writer, "PutConceptDescriptionById", {
        cdId: ACCESS_CD_1,
        body: body({ ...cd, id: ACCESS_CD_1 }),
      });
      await denied(who.reader, "DeleteConceptDescriptionById", { cdId: "urn:access:cd:new" });
      await allowed(who.writer, "DeleteConceptDescriptionById", { cdId: "urn:access:cd:new" });
    });

    test("operations: EXECUTE on the Operation's path; its handles belong to those who may invoke it", async () => {
      const address = { submodelId: ACCESS_SM_1, idShortPath: "Op", body: body({ inputArguments: [] }) };
      await denied(who.reader, "InvokeOperation", address);
      await denied(who.partial, "InvokeOperationAsync", address);
      // No provider is configured: the invocation runs and fails, it is not refused.
      const result = (await allowed(who.operator, "InvokeOperation", address)) as { executionState: string };
      assert.equal(result.executionState, "Failed");
      const { handleId } = await allowed(who.operator, "InvokeOperationAsync", address);
      await allowed(who.operator, "GetOperationAsyncStatus", { submodelId: ACCESS_SM_1, idShortPath: "Op", handleId });
      await denied(who.reader, "GetOperationAsyncResult", { submodelId: ACCESS_SM_1, idShortPath: "Op", handleId });
      await allowed(who.admin, "InvokeOperation", address);
    });

    test("proprietary calls: /reset (DELETE), /import (CREATE), /packages (READ and writes)", async () => {
      const documents = [
        {
          format: "json" as const,
          text: body({ conceptDescriptions: [{ modelType: "ConceptDescription", id: "urn:access:cd:imported" }] }),
        },
      ];
      await denied(who.writer, "ImportEnvironment", { documents, mode: "partial" });
      await allowed(who.maintenance, "ImportEnvironment", { documents, mode: "partial" });
      await denied(who.writer, "LoadEnvironment", { body: "{}" });
      await denied(who.reader, "GetAASXByPackageId", { packageId: "nothing" });
      const missing = await run(who.maintenance, "GetAASXByPackageId", { packageId: "nothing" });
      assert.equal(!missing.ok && missing.error.code, "not-found");
      await denied(who.writer, "DeleteAASXByPackageId", { packageId: "nothing" });
      await denied(who.reader, "GetEvents", { after: 0, limit: 10 });
      await allowed(who.reader, "GetSequence", {});
      await denied(who.writer, "ResetStore", {});
      await allowed(who.maintenance, "ResetStore", {});
      assert.deepEqual(ids(await allowed(who.admin, "GetAllSubmodels", {})), []);
    });
  });
}
