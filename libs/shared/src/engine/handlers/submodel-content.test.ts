import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";
import type { Paged, RawJson } from "../../contracts/index.ts";
import { type TestEngine, testEngine } from "./test-support/handlers.ts";

const SM = "https://example.org/submodels/technical-data-1";
const raw = (value: unknown) => JSON.parse((value as RawJson).rawJson);
const paged = (value: unknown) => value as Paged<any>;

describe("GET projections of submodels and elements", () => {
  let t: TestEngine;
  beforeEach(async () => {
    t = await testEngine();
  });

  test("extent: Blob bytes only when asked (the gateway passes the API default withoutBlobValue)", async () => {
    const full = (await t.ok("GetSubmodelById", { submodelId: SM })).value as any;
    assert.equal(full.submodelElements.find((e: any) => e.idShort === "Firmware").value, "SGVsbG8gQUFTIQ==");
    const without = (await t.ok("GetSubmodelById", { submodelId: SM, modifiers: { extent: "withoutBlobValue" } }))
      .value as any;
    assert.deepEqual(
      without.submodelElements.find((e: any) => e.idShort === "Firmware"),
      { modelType: "Blob", idShort: "Firmware", contentType: "application/octet-stream" },
    );
    const element = (
      await t.ok("GetSubmodelElementByPath", {
        submodelId: SM,
        idShortPath: "Firmware",
        modifiers: { extent: "withoutBlobValue" },
      })
    ).value as any;
    assert.equal(element.value, undefined);
  });

  test("$metadata of a submodel and of elements; 400 for Operation and Capability", async () => {
    const meta = await t.ok("GetSubmodelById", { submodelId: SM, modifiers: { content: "metadata" } });
    assert.equal((meta.value as any).submodelElements, undefined);
    assert.equal((meta.value as any).id, SM);
    assert.ok(meta.revision);
    const collection = (
      await t.ok("GetSubmodelElementByPath", {
        submodelId: SM,
        idShortPath: "Dimensions",
        modifiers: { content: "metadata" },
      })
    ).value;
    assert.deepEqual(collection, { modelType: "SubmodelElementCollection", idShort: "Dimensions" });
    const property = (
      await t.ok("GetSubmodelElementByPath", {
        submodelId: SM,
        idShortPath: "Dimensions.Width",
        modifiers: { content: "metadata" },
      })
    ).value;
    assert.deepEqual(property, { modelType: "Property", idShort: "Width", valueType: "xs:double" });
    await t.fails(
      "GetSubmodelElementByPath",
      { submodelId: SM, idShortPath: "Functions.Reset", modifiers: { content: "metadata" } },
      "bad-request",
      /Operation/,
    );
    await t.fails(
      "GetSubmodelElementByPath",
      { submodelId: SM, idShortPath: "Functions.Pumping", modifiers: { content: "metadata" } },
      "bad-request",
      /Capability/,
    );
  });

  test("$reference: ModelReference with one key per step, list items keyed by index", async () => {
    assert.deepEqual((await t.ok("GetSubmodelById", { submodelId: SM, modifiers: { content: "reference" } })).value, {
      type: "ModelReference",
      keys: [{ type: "Submodel", value: SM }],
    });
    const item = await t.ok("GetSubmodelElementByPath", {
      submodelId: SM,
      idShortPath: "Tags[1]",
      modifiers: { content: "reference" },
    });
    assert.deepEqual((item.value as any).keys, [
      { type: "Submodel", value: SM },
      { type: "SubmodelElementList", value: "Tags" },
      { type: "Property", value: "1" },
    ]);
    assert.ok(item.revision);
    const nested = (
      await t.ok("GetSubmodelElementByPath", {
        submodelId: SM,
        idShortPath: "Dimensions.Nested.Depth",
        modifiers: { content: "reference" },
      })
    ).value as any;
    assert.deepEqual(
      nested.keys.map((k: any) => k.type),
      ["Submodel", "SubmodelElementCollection", "SubmodelElementCollection", "Property"],
    );
    await t.fails(
      "GetSubmodelElementByPath",
      { submodelId: SM, idShortPath: "Tags[7]", modifiers: { content: "reference" } },
      "not-found",
    );
    const list = paged(
      (
        await t.ok("GetAllSubmodelElements", {
          submodelId: SM,
          page: { limit: 2 },
          modifiers: { content: "reference" },
        })
      ).value,
    );
    assert.deepEqual(
      list.items.map((r: any) => r.keys[1]),
      [
        { type: "SubmodelElementCollection", value: "Dimensions" },
        { type: "SubmodelElementList", value: "Tags" },
      ],
    );
  });

  test("$path: full paths from the root, deep or core; only on collections, lists and entities", async () => {
    const deep = (await t.ok("GetSubmodelById", { submodelId: SM, modifiers: { content: "path" } })).value as string[];
    assert.deepEqual(deep.slice(0, 7), [
      "Dimensions",
      "Dimensions.Width",
      "Dimensions.Height",
      "Dimensions.Nested",
      "Dimensions.Nested.Depth",
      "Tags",
      "Tags[0]",
    ]);
    const core = (await t.ok("GetSubmodelById", { submodelId: SM, modifiers: { content: "path", level: "core" } }))
      .value as string[];
    assert.ok(core.every((path) => !/[.[]/.test(path)));
    assert.ok(core.includes("Motor"));
    const nested = (
      await t.ok("GetSubmodelElementByPath", {
        submodelId: SM,
        idShortPath: "Dimensions",
        modifiers: { content: "path" },
      })
    ).value;
    assert.deepEqual(nested, [
      "Dimensions",
      "Dimensions.Width",
      "Dimensions.Height",
      "Dimensions.Nested",
      "Dimensions.Nested.Depth",
    ]);
    const coreNested = (
      await t.ok("GetSubmodelElementByPath", {
        submodelId: SM,
        idShortPath: "Dimensions.Nested",
        modifiers: { content: "path", level: "core" },
      })
    ).value;
    assert.deepEqual(coreNested, ["Dimensions.Nested", "Dimensions.Nested.Depth"]);
    for (const path of ["MaxRotationSpeed", "Links.AnnotatedLink", "Functions.Reset"]) {
      await t.fails(
        "GetSubmodelElementByPath",
        { submodelId: SM, idShortPath: path, modifiers: { content: "path" } },
        "bad-request",
        /\$path/,
      );
    }
  });

  test("paged $path: limit counts paths, a page may end inside an element, pages join up", async () => {
    const all = (await t.ok("GetSubmodelById", { submodelId: SM, modifiers: { content: "path" } })).value as string[];
    for (const limit of [1, 2, 3, 7]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = paged(
          (
            await t.ok("GetAllSubmodelElements", {
              submodelId: SM,
              page: { limit, ...(cursor ? { cursor } : {}) },
              modifiers: { content: "path" },
            })
          ).value,
        );
        assert.ok(page.items.length <= limit);
        if (page.cursor !== undefined) assert.equal(page.items.length, limit);
        seen.push(...page.items);
        cursor = page.cursor;
      } while (cursor !== undefined);
      assert.deepEqual(seen, all, `limit ${limit}`);
    }
    await t.fails(
      "GetAllSubmodelElements",
      { submodelId: SM, page: { cursor: "bm9wZQ" }, modifiers: { content: "path" } },
      "bad-request",
      /cursor/,
    );
  });

  test("paged $path survives inserts and deletes elsewhere between pages", async () => {
    const first = paged(
      (await t.ok("GetAllSubmodelElements", { submodelId: SM, page: { limit: 3 }, modifiers: { content: "path" } }))
        .value,
    );
    assert.deepEqual(first.items, ["Dimensions", "Dimensions.Width", "Dimensions.Height"]);
    await t.ok("DeleteSubmodelElementByPath", { submodelId: SM, idShortPath: "Dimensions.Width" });
    await t.ok("DeleteSubmodelElementByPath", { submodelId: SM, idShortPath: "Tags" });
    await t.ok("PostSubmodelElement", {
      submodelId: SM,
      body: JSON.stringify({ modelType: "Property", idShort: "Added", valueType: "xs:int", value: "1" }),
    });
    const second = paged(
      (
        await t.ok("GetAllSubmodelElements", {
          submodelId: SM,
          page: { limit: 4, cursor: first.cursor },
          modifiers: { content: "path" },
        })
      ).value,
    );
    assert.deepEqual(second.items, ["Dimensions.Nested", "Dimensions.Nested.Depth", "Functions", "Functions.Pumping"]);
    let rest: string[] = [];
    let cursor = second.cursor;
    while (cursor) {
      const page = paged(
        (
          await t.ok("GetAllSubmodelElements", {
            submodelId: SM,
            page: { limit: 100, cursor },
            modifiers: { content: "path" },
          })
        ).value,
      );
      rest = [...rest, ...page.items];
      cursor = page.cursor;
    }
    assert.equal(rest.at(-1), "Added");
    assert.ok(!rest.includes("Tags"));
  });

  test("$value list: one wrapped object per element, Operation/Capability left out, paged by the rest", async () => {
    const functions = JSON.stringify({ modelType: "Operation", idShort: "RootOp" });
    await t.ok("PostSubmodelElement", { submodelId: SM, body: functions });
    const items: any[] = [];
    let cursor: string | undefined;
    do {
      const page = paged(
        (
          await t.ok("GetAllSubmodelElements", {
            submodelId: SM,
            page: { limit: 4, ...(cursor ? { cursor } : {}) },
            modifiers: { content: "value" },
          })
        ).value,
      );
      items.push(...page.items.map(raw));
      cursor = page.cursor;
    } while (cursor);
    assert.ok(items.every((item) => Object.keys(item).length === 1));
    const names = items.map((item) => Object.keys(item)[0]);
    assert.ok(!names.includes("RootOp"));
    assert.deepEqual(names.slice(0, 3), ["Dimensions", "Tags", "Functions"]);
    assert.deepEqual(items[2], { Functions: {} }, "a collection of operations only has an empty ValueOnly form");
    const core = paged(
      (await t.ok("GetAllSubmodelElements", { submodelId: SM, modifiers: { content: "value", level: "core" } })).value,
    ).items.map(raw);
    assert.deepEqual(core[0], { Dimensions: {} });
    assert.deepEqual(core[1], { Tags: [] });
  });

  test("$metadata list and /submodels in every form, filtered by idShort and semanticId", async () => {
    await t.ok("PostSubmodelElement", {
      submodelId: SM,
      body: JSON.stringify({ modelType: "Capability", idShort: "RootCapability" }),
    });
    const meta = paged(
      (await t.ok("GetAllSubmodelElements", { submodelId: SM, modifiers: { content: "metadata" } })).value,
    );
    assert.ok(meta.items.every((e: any) => e.value === undefined && e.statements === undefined));
    assert.deepEqual(
      meta.items.at(-1),
      { modelType: "Capability", idShort: "RootCapability" },
      "kept whole in the list, though a 400 when addressed",
    );
    const submodels = paged(
      (await t.ok("GetAllSubmodels", { idShort: "Identification", modifiers: { content: "metadata" } })).value,
    );
    assert.equal(submodels.items.length, 3);
    assert.ok(submodels.items.every((s: any) => s.submodelElements === undefined));
    const refs = paged(
      (await t.ok("GetAllSubmodels", { page: { limit: 2 }, modifiers: { content: "reference" } })).value,
    );
    assert.deepEqual(refs.items[0], { type: "ModelReference", keys: [{ type: "Submodel", value: SM }] });
    const values = paged(
      (await t.ok("GetAllSubmodels", { page: { limit: 1 }, modifiers: { content: "value" } })).value,
    );
    assert.equal(raw(values.items[0]).MaxRotationSpeed, 5000);
    const semantics = "https://example.org/semantics/TechnicalData/1/0";
    const byKey = paged((await t.ok("GetAllSubmodels", { semanticId: semantics })).value);
    assert.equal(byKey.items.length, 6);
    const reference = JSON.stringify({
      type: "ExternalReference",
      keys: [{ type: "GlobalReference", value: semantics }],
    });
    assert.equal(paged((await t.ok("GetAllSubmodels", { semanticId: reference })).value).items.length, 6);
    const otherType = JSON.stringify({ type: "ModelReference", keys: [{ type: "GlobalReference", value: semantics }] });
    assert.equal(paged((await t.ok("GetAllSubmodels", { semanticId: otherType })).value).items.length, 0);
  });

  test("/submodels/$path pages by path across submodels", async () => {
    const all: string[] = [];
    for (const id of (paged((await t.ok("GetAllSubmodels", { idShort: "TechnicalData" })).value).items as any[]).map(
      (s) => s.id,
    )) {
      all.push(
        ...((await t.ok("GetSubmodelById", { submodelId: id, modifiers: { content: "path", level: "core" } }))
          .value as string[]),
      );
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = paged(
        (
          await t.ok("GetAllSubmodels", {
            idShort: "TechnicalData",
            page: { limit: 5, ...(cursor ? { cursor } : {}) },
            modifiers: { content: "path", level: "core" },
          })
        ).value,
      );
      seen.push(...page.items);
      cursor = page.cursor;
    } while (cursor);
    assert.deepEqual(seen, all);
    assert.equal(all.length % 5, 0, "the last page ends exactly at the end and still carries no cursor");
  });
});
