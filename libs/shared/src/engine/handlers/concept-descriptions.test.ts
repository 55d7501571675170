import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type TestEngine, testEngine } from "./test-support/handlers.ts";

const IEC61360 = "https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIec61360/3";
const cd = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ modelType: "ConceptDescription", id, ...extra });
const ids = (value: unknown) => (value as { items: { id: string }[] }).items.map((item) => item.id);

describe("Concept Description Repository commands", () => {
  let t: TestEngine;
  before(async () => {
    t = await testEngine();
  });

  it("lists, filters by idShort, isCaseOf and dataSpecificationRef (key value or JSON Reference)", async () => {
    assert.deepEqual(ids((await t.ok("GetAllConceptDescriptions", {})).value), [
      "https://example.org/cd/max-rotation-speed",
      "https://example.org/cd/serial-number",
    ]);
    assert.deepEqual(ids((await t.ok("GetAllConceptDescriptions", { idShort: "SerialNumber" })).value), [
      "https://example.org/cd/serial-number",
    ]);
    assert.deepEqual(ids((await t.ok("GetAllConceptDescriptions", { idShort: "serialnumber" })).value), []);
    assert.deepEqual(ids((await t.ok("GetAllConceptDescriptions", { isCaseOf: "0173-1#02-AAM556#002" })).value), [
      "https://example.org/cd/serial-number",
    ]);
    const asJson = JSON.stringify({ type: "ExternalReference", keys: [{ type: "GlobalReference", value: IEC61360 }] });
    assert.deepEqual(ids((await t.ok("GetAllConceptDescriptions", { dataSpecificationRef: asJson })).value), [
      "https://example.org/cd/max-rotation-speed",
    ]);
    assert.deepEqual(
      ids((await t.ok("GetAllConceptDescriptions", { dataSpecificationRef: IEC61360, idShort: "SerialNumber" })).value),
      [],
    );
    await t.fails("GetAllConceptDescriptions", { isCaseOf: '{"keys":[]}' }, "bad-request");
  });

  it("pages with a cursor", async () => {
    const first = (await t.ok("GetAllConceptDescriptions", { page: { limit: 1 } })).value;
    assert.equal(first.items.length, 1);
    assert.ok(first.cursor);
    const second = (await t.ok("GetAllConceptDescriptions", { page: { limit: 1, cursor: first.cursor } })).value;
    assert.deepEqual(ids(second), ["https://example.org/cd/serial-number"]);
  });

  it("creates (without idShort), reads with a revision, replaces, deletes; one event each", async () => {
    const posted = await t.ok("PostConceptDescription", { body: cd("urn:cd:1") });
    assert.deepEqual(posted.value, { modelType: "ConceptDescription", id: "urn:cd:1" });
    const read = await t.ok("GetConceptDescriptionById", { cdId: "urn:cd:1" });
    assert.equal(read.revision, posted.revision);
    await t.fails("PostConceptDescription", { body: cd("urn:cd:1") }, "conflict");
    await t.fails("PostConceptDescription", { body: cd("https://example.org/aas/test-1") }, "conflict");
    await t.fails(
      "PutConceptDescriptionById",
      { cdId: "urn:cd:1", body: cd("urn:cd:1", { idShort: "X" }), preconditions: { ifMatch: ["1"] } },
      "precondition-failed",
    );
    const put = await t.ok("PutConceptDescriptionById", {
      cdId: "urn:cd:1",
      body: cd("urn:cd:1", { idShort: "X" }),
      preconditions: { ifMatch: [String(read.revision)] },
    });
    assert.ok(put.revision! > read.revision!);
    assert.equal(
      ((await t.ok("GetConceptDescriptionById", { cdId: "urn:cd:1" })).value as { idShort: string }).idShort,
      "X",
    );
    await t.fails("PutConceptDescriptionById", { cdId: "urn:cd:1", body: cd("urn:cd:2") }, "bad-request", /differs/);
    await t.fails("PutConceptDescriptionById", { cdId: "urn:cd:missing", body: cd("urn:cd:missing") }, "not-found");
    await t.fails(
      "DeleteConceptDescriptionById",
      { cdId: "urn:cd:1", preconditions: { ifMatch: [String(read.revision)] } },
      "precondition-failed",
    );
    await t.ok("DeleteConceptDescriptionById", { cdId: "urn:cd:1" });
    await t.fails("GetConceptDescriptionById", { cdId: "urn:cd:1" }, "not-found");
    assert.deepEqual(
      t.events.map((event) => event.kind),
      ["concept-description.created", "concept-description.updated", "concept-description.deleted"],
    );
  });

  it("refuses unknown properties and a shell id read as a concept description", async () => {
    await t.fails("PostConceptDescription", { body: cd("urn:cd:u", { colour: "red" }) }, "bad-request", /colour/);
    await t.fails("GetConceptDescriptionById", { cdId: "https://example.org/aas/test-1" }, "not-found");
  });
});
