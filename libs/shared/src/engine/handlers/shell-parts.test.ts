import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";
import { RepositoryUnavailableError } from "../ports/index.ts";
import { type FileTestEngine, fileTestEngine } from "./test-support/files.ts";
import { type TestEngine, testEngine } from "./test-support/handlers.ts";

const SHELL = "https://example.org/aas/test-1";
const smRef = (id: string) => ({ type: "ModelReference", keys: [{ type: "Submodel", value: id }] });
type Shell = { assetInformation: Record<string, unknown>; submodels?: unknown[] };

describe("AAS API commands: shell projections, asset information, submodel references", () => {
  let t: TestEngine;
  beforeEach(async () => {
    t = await testEngine();
  });

  it("reads shells as ModelReferences (one and paged) and filters by asset ids", async () => {
    const one = await t.ok("GetAssetAdministrationShellById", { aasId: SHELL, modifiers: { content: "reference" } });
    assert.deepEqual(one.value, { type: "ModelReference", keys: [{ type: "AssetAdministrationShell", value: SHELL }] });
    assert.ok(one.revision);
    const all = (
      await t.ok("GetAllAssetAdministrationShells", { modifiers: { content: "reference" }, idShort: "TestAas2" })
    ).value;
    assert.deepEqual(all.items, [
      { type: "ModelReference", keys: [{ type: "AssetAdministrationShell", value: "https://example.org/aas/test-2" }] },
    ]);
    const both = await t.ok("GetAllAssetAdministrationShells", {
      assetIds: [
        { name: "serialNumber", value: "SN-0001" },
        { name: "globalAssetId", value: "https://example.org/assets/pump-0001" },
      ],
    });
    assert.deepEqual(
      (both.value.items as { id: string }[]).map((s) => s.id),
      [SHELL],
    );
    await t.fails("GetAssetAdministrationShellById", { aasId: SHELL, modifiers: { content: "value" } }, "bad-request");
    await t.fails("GetAllAssetAdministrationShells", { modifiers: { content: "metadata" } }, "bad-request");
  });

  it("gets and replaces the asset information under the shell's revision", async () => {
    const got = await t.ok("GetAssetInformation", { aasId: SHELL });
    assert.equal((got.value as { globalAssetId: string }).globalAssetId, "https://example.org/assets/pump-0001");
    const info = { assetKind: "Type", globalAssetId: "urn:asset:new", assetType: "pump" };
    await t.fails(
      "PutAssetInformation",
      { aasId: SHELL, body: JSON.stringify(info), preconditions: { ifMatch: ['"0"'] } },
      "precondition-failed",
    );
    const put = await t.ok("PutAssetInformation", {
      aasId: SHELL,
      body: JSON.stringify(info),
      preconditions: { ifMatch: [String(got.revision)] },
    });
    const shell = await t.ok("GetAssetAdministrationShellById", { aasId: SHELL });
    assert.deepEqual((shell.value as Shell).assetInformation, info);
    assert.equal(shell.revision, put.revision);
    assert.deepEqual(
      t.events.map((e) => e.kind),
      ["shell.updated"],
    );
    await t.fails(
      "PutAssetInformation",
      { aasId: SHELL, body: JSON.stringify({ ...info, colour: "red" }) },
      "bad-request",
      /assetInformation\.colour/,
    );
    await t.fails(
      "PutAssetInformation",
      { aasId: SHELL, body: JSON.stringify({ assetKind: "Instance" }) },
      "validation",
      /AASd-131/,
    );
    await t.fails("PutAssetInformation", { aasId: SHELL, body: "[]" }, "bad-request");
    await t.fails("PutAssetInformation", { aasId: "urn:missing", body: JSON.stringify(info) }, "not-found");
    await t.fails("GetAssetInformation", { aasId: "https://example.org/submodels/technical-data-1" }, "not-found");
  });

  it("pages, adds and removes submodel references", async () => {
    const first = (await t.ok("GetAllSubmodelReferences", { aasId: SHELL, page: { limit: 1 } })).value;
    assert.deepEqual(first.items, [smRef("https://example.org/submodels/technical-data-1")]);
    assert.ok(first.cursor);
    const rest = (await t.ok("GetAllSubmodelReferences", { aasId: SHELL, page: { cursor: first.cursor } })).value;
    assert.deepEqual(rest, { items: [smRef("https://example.org/submodels/identification-1")] });

    const posted = await t.ok("PostSubmodelReference", { aasId: SHELL, body: JSON.stringify(smRef("urn:sm:new")) });
    assert.deepEqual(posted.value, smRef("urn:sm:new"));
    await t.fails("PostSubmodelReference", { aasId: SHELL, body: JSON.stringify(smRef("urn:sm:new")) }, "conflict");
    await t.fails(
      "PostSubmodelReference",
      {
        aasId: SHELL,
        body: JSON.stringify({ type: "ExternalReference", keys: [{ type: "GlobalReference", value: "x" }] }),
      },
      "validation",
    );
    await t.fails(
      "PostSubmodelReference",
      {
        aasId: SHELL,
        body: JSON.stringify({ type: "ModelReference", keys: [{ type: "ConceptDescription", value: "x" }] }),
      },
      "validation",
    );
    await t.fails("PostSubmodelReference", { aasId: SHELL, body: '{"type":"ModelReference"}' }, "bad-request");
    await t.fails(
      "PostSubmodelReference",
      { aasId: "urn:missing", body: JSON.stringify(smRef("urn:sm:x")) },
      "not-found",
    );

    await t.ok("DeleteSubmodelReferenceById", {
      aasId: SHELL,
      submodelId: "https://example.org/submodels/technical-data-1",
    });
    await t.fails(
      "DeleteSubmodelReferenceById",
      { aasId: SHELL, submodelId: "https://example.org/submodels/technical-data-1" },
      "not-found",
    );
    // Only the reference went: the submodel itself stays in the repository.
    await t.ok("GetSubmodelById", { submodelId: "https://example.org/submodels/technical-data-1" });
    await t.ok("DeleteSubmodelReferenceById", {
      aasId: SHELL,
      submodelId: "https://example.org/submodels/identification-1",
    });
    await t.ok("DeleteSubmodelReferenceById", { aasId: SHELL, submodelId: "urn:sm:new" });
    const shell = (await t.ok("GetAssetAdministrationShellById", { aasId: SHELL })).value as Shell;
    assert.equal(shell.submodels, undefined, "no references: no (empty, invalid) submodels list");
    assert.deepEqual((await t.ok("GetAllSubmodelReferences", { aasId: SHELL })).value, { items: [] });
  });

  it("resumes a submodel-refs cursor by content when references change between pages", async () => {
    for (const id of ["urn:sm:a", "urn:sm:b", "urn:sm:c"])
      await t.ok("PostSubmodelReference", { aasId: SHELL, body: JSON.stringify(smRef(id)) });
    // technical-data-1, identification-1, a, b, c
    const page1 = (await t.ok("GetAllSubmodelReferences", { aasId: SHELL, page: { limit: 2 } })).value;
    await t.ok("DeleteSubmodelReferenceById", {
      aasId: SHELL,
      submodelId: "https://example.org/submodels/technical-data-1",
    });
    const page2 = (await t.ok("GetAllSubmodelReferences", { aasId: SHELL, page: { limit: 2, cursor: page1.cursor } }))
      .value;
    assert.deepEqual(page2.items, [smRef("urn:sm:a"), smRef("urn:sm:b")], "a deletion before the cursor skips nothing");
    await t.ok("DeleteSubmodelReferenceById", { aasId: SHELL, submodelId: "urn:sm:c" });
    await t.ok("PostSubmodelReference", { aasId: SHELL, body: JSON.stringify(smRef("urn:sm:d")) });
    const page3 = (await t.ok("GetAllSubmodelReferences", { aasId: SHELL, page: { limit: 2, cursor: page2.cursor } }))
      .value;
    assert.deepEqual(
      page3,
      { items: [smRef("urn:sm:d")] },
      "the next item deleted: resume after the last one returned",
    );
    await t.fails("GetAllSubmodelReferences", { aasId: SHELL, page: { cursor: "bm9wZQ" } }, "bad-request");
    await t.fails("GetAllSubmodelReferences", { aasId: SHELL, page: { limit: 0 } }, "bad-request");
  });

  it("refuses another shell's submodel-refs cursor instead of skipping references", async () => {
    // Both shells reference submodels by content-like keys; another shell's cursor named a place
    // in this one and the page left out the references before it (a black-box finding).
    const other = "https://example.org/aas/test-2";
    const page1 = (await t.ok("GetAllSubmodelReferences", { aasId: other, page: { limit: 1 } })).value;
    assert.ok(page1.cursor);
    await t.fails("GetAllSubmodelReferences", { aasId: SHELL, page: { cursor: page1.cursor } }, "bad-request");
    const rest = (await t.ok("GetAllSubmodelReferences", { aasId: other, page: { cursor: page1.cursor } })).value;
    assert.ok(rest.items.length > 0);
  });
});

describe("Basic Discovery commands: asset links are the shell's asset ids", () => {
  let t: TestEngine;
  beforeEach(async () => {
    t = await testEngine();
  });

  it("looks up shell ids by asset links (all must match), paged", async () => {
    const all = (await t.ok("GetAllAssetAdministrationShellIdsByAssetLink", {})).value;
    assert.deepEqual(all.items, [
      "https://example.org/aas/test-1",
      "https://example.org/aas/test-2",
      "https://example.org/aas/test-3",
    ]);
    const page = (await t.ok("GetAllAssetAdministrationShellIdsByAssetLink", { page: { limit: 2 } })).value;
    assert.equal(page.items.length, 2);
    assert.ok(page.cursor);
    const bySerial = (
      await t.ok("GetAllAssetAdministrationShellIdsByAssetLink", {
        assetIds: [{ name: "serialNumber", value: "SN-0002" }],
      })
    ).value;
    assert.deepEqual(bySerial.items, ["https://example.org/aas/test-2"]);
    const mismatch = [
      { name: "serialNumber", value: "SN-0002" },
      { name: "globalAssetId", value: "https://example.org/assets/pump-0001" },
    ];
    assert.deepEqual((await t.ok("GetAllAssetAdministrationShellIdsByAssetLink", { assetIds: mismatch })).value, {
      items: [],
    });
  });

  it("gets, upserts by name and deletes links; /shells?assetIds sees the same links", async () => {
    assert.deepEqual((await t.ok("GetAllAssetLinksById", { aasId: SHELL })).value, [
      { name: "globalAssetId", value: "https://example.org/assets/pump-0001" },
      { name: "serialNumber", value: "SN-0001" },
    ]);
    const posted = await t.ok("PostAllAssetLinksById", {
      aasId: SHELL,
      body: JSON.stringify([
        { name: "serialNumber", value: "SN-9" },
        { name: "batch", value: "B1" },
        { name: "globalAssetId", value: "urn:asset:9" },
      ]),
    });
    const expected = [
      { name: "globalAssetId", value: "urn:asset:9" },
      { name: "serialNumber", value: "SN-9" },
      { name: "batch", value: "B1" },
    ];
    assert.deepEqual(posted.value, expected);
    assert.deepEqual((await t.ok("GetAllAssetLinksById", { aasId: SHELL })).value, expected);
    const found = (await t.ok("GetAllAssetAdministrationShells", { assetIds: [{ name: "batch", value: "B1" }] })).value;
    assert.deepEqual(
      (found.items as { id: string }[]).map((s) => s.id),
      [SHELL],
    );

    await t.ok("DeleteAllAssetLinksById", { aasId: SHELL });
    assert.deepEqual((await t.ok("GetAllAssetLinksById", { aasId: SHELL })).value, []);
    const info = ((await t.ok("GetAssetAdministrationShellById", { aasId: SHELL })).value as Shell).assetInformation;
    assert.deepEqual(info, {
      assetKind: "Instance",
      defaultThumbnail: { path: "/aasx/thumbnail.png", contentType: "image/png" },
    });
    await t.ok("PostAllAssetLinksById", {
      aasId: SHELL,
      body: JSON.stringify([{ name: "serialNumber", value: "SN-1" }]),
    });
    assert.deepEqual((await t.ok("GetAllAssetLinksById", { aasId: SHELL })).value, [
      { name: "serialNumber", value: "SN-1" },
    ]);
    assert.deepEqual(
      t.events.map((e) => e.kind),
      ["shell.updated", "shell.updated", "shell.updated"],
    );
  });

  it("a name posted more than once: its links together replace that name's ids, and GET's answer posts back", async () => {
    await t.ok("PostAllAssetLinksById", {
      aasId: SHELL,
      body: '[{"name":"serial","value":"old"},{"name":"line","value":"L1"}]',
    });
    const posted = await t.ok("PostAllAssetLinksById", {
      aasId: SHELL,
      body: '[{"name":"serial","value":"A"},{"name":"serial","value":"B"}]',
    });
    const links = posted.value as { name: string; value: string }[];
    assert.deepEqual(
      links.filter((link) => link.name === "line" || link.name === "serial"),
      [
        { name: "serial", value: "A" },
        { name: "serial", value: "B" },
        { name: "line", value: "L1" },
      ],
    );
    const again = await t.ok("PostAllAssetLinksById", { aasId: SHELL, body: JSON.stringify(links) });
    assert.deepEqual(again.value, links);
    assert.deepEqual((await t.ok("GetAllAssetLinksById", { aasId: SHELL })).value, links);
  });

  it("refuses bad link lists and unknown shells", async () => {
    await t.fails("PostAllAssetLinksById", { aasId: SHELL, body: "[]" }, "bad-request", /non-empty/);
    await t.fails("PostAllAssetLinksById", { aasId: SHELL, body: '{"name":"a","value":"b"}' }, "bad-request");
    await t.fails("PostAllAssetLinksById", { aasId: SHELL, body: '[{"name":"a"}]' }, "bad-request", /\[0\]/);
    await t.fails(
      "PostAllAssetLinksById",
      { aasId: SHELL, body: '[{"name":"a","value":"b","colour":1}]' },
      "bad-request",
      /colour/,
    );
    await t.fails(
      "PostAllAssetLinksById",
      { aasId: SHELL, body: '[{"name":"globalAssetId","value":"b"},{"name":"globalAssetId","value":"c"}]' },
      "bad-request",
      /more than once/,
    );
    await t.fails("PostAllAssetLinksById", { aasId: "urn:missing", body: '[{"name":"a","value":"b"}]' }, "not-found");
    // An externalSubjectId on the global asset id's link is kept where the metamodel holds it: a
    // specific asset id of the reserved name and the same value (AASd-116), listed once.
    const subject = { type: "ExternalReference", keys: [{ type: "GlobalReference", value: "urn:company:A" }] };
    const withSubject = { name: "globalAssetId", value: "urn:g", externalSubjectId: subject };
    const posted = await t.ok("PostAllAssetLinksById", { aasId: SHELL, body: JSON.stringify([withSubject]) });
    assert.deepEqual((posted.value as unknown[])[0], withSubject);
    const info = (await t.ok("GetAssetInformation", { aasId: SHELL })).value as Record<string, unknown>;
    assert.equal(info.globalAssetId, "urn:g");
    assert.deepEqual(
      (info.specificAssetIds as { name: string }[]).filter((id) => id.name === "globalAssetId"),
      [withSubject],
    );
    await t.fails("GetAllAssetLinksById", { aasId: "urn:missing" }, "not-found");
    await t.fails("DeleteAllAssetLinksById", { aasId: "https://example.org/cd/serial-number" }, "not-found");
  });
});

describe("DELETE of a shell's submodel whose second commit fails", () => {
  const aasId = "https://example.org/aas/test-1";
  const submodelId = "https://example.org/submodels/identification-1";
  const references = async (t: FileTestEngine) =>
    ((await t.ok("GetAllSubmodelReferences", { aasId })).value.items as { keys: { value: string }[] }[]).map(
      (reference) => reference.keys[0]!.value,
    );

  it("answers timeout, not unavailable (the submodel is gone), and a repeat removes the reference", async () => {
    const t = await fileTestEngine();
    const commit = t.repository.commit.bind(t.repository);
    let commits = 0;
    t.repository.commit = async (planned) => {
      // The submodel's delete commits; Redis is gone before the reference's removal.
      if (++commits === 2) throw new RepositoryUnavailableError("the connection to Redis is down");
      return await commit(planned);
    };
    const failed = await t.run("DeleteSubmodelById", { submodelId, aasId });
    assert.equal(failed.ok, false);
    assert.equal(!failed.ok && failed.error.code, "timeout", "503 says nothing happened: the submodel is gone");
    assert.match(!failed.ok ? failed.error.message : "", /was deleted, but removing its reference .* without If-Match/);
    await t.fails("GetSubmodelById", { submodelId }, "not-found");
    assert.ok((await references(t)).includes(submodelId), "the reference stayed");
    t.repository.commit = commit;
    // Repeated, the same request completes what it began.
    await t.ok("DeleteSubmodelById", { submodelId, aasId });
    assert.ok(!(await references(t)).includes(submodelId));
    // Nothing of it left: now a 404.
    await t.fails("DeleteSubmodelById", { submodelId, aasId }, "not-found");
  });
});
