import assert from "node:assert/strict";
import type { ChangeEventDraft } from "../contracts/index.ts";
import { assetIdTerm, indexTerm } from "../engine/index-terms.ts";
import type { Commit, CommitOp, IdentifiableKind, Repository } from "../engine/ports/index.ts";

/**
 * The filter index part of the Repository contract (docs/adr/0035): `listIdentifiablesByTerms`
 * answers exactly the identifiables carrying the rarest term, in creation order, with the cursors
 * of listIdentifiables, kept in the commit's atomic step. Run by repository-contract.ts.
 */
export function termIndexContract(test: (title: string, body: (repo: Repository) => Promise<void>) => void): void {
  test("filter index: follows create, a change of the indexed field, an unchanged rewrite and delete", async (repo) => {
    await put(repo, "shell", "s1", { id: "s1", idShort: "Pump" });
    await put(repo, "shell", "s2", { id: "s2", idShort: "Valve" });
    await put(repo, "shell", "s3", { id: "s3", idShort: "Pump" });
    const pump = [indexTerm("idShort", "Pump")];
    const valve = [indexTerm("idShort", "Valve")];
    assert.deepEqual(await ids(repo, "shell", pump), ["s1", "s3"]);
    await put(repo, "shell", "s1", { id: "s1", idShort: "Valve" });
    assert.deepEqual(await ids(repo, "shell", pump), ["s3"]);
    // Creation order, not the order of the change.
    assert.deepEqual(await ids(repo, "shell", valve), ["s1", "s2"]);
    await put(repo, "shell", "s2", { id: "s2", idShort: "Valve", description: [{ language: "en", text: "x" }] });
    assert.deepEqual(await ids(repo, "shell", valve), ["s1", "s2"]);
    const stored = await repo.listIdentifiablesByTerms("shell", valve, { limit: 10 });
    assert.equal(
      stored.items[1]?.json,
      JSON.stringify({ id: "s2", idShort: "Valve", description: [{ language: "en", text: "x" }] }),
    );
    await repo.commit(commit([{ op: "delete-identifiable", kind: "shell", id: "s1" }]));
    assert.deepEqual(await ids(repo, "shell", valve), ["s2"]);
    // Re-created: a new life at the end of the order, listed once.
    await put(repo, "shell", "s1", { id: "s1", idShort: "Valve" });
    assert.deepEqual(await ids(repo, "shell", valve), ["s2", "s1"]);
    assert.deepEqual(await ids(repo, "shell", [indexTerm("idShort", "NoSuch")]), []);
    // Kinds have indexes of their own.
    assert.deepEqual(await ids(repo, "submodel", valve), []);
  });

  test("filter index: indexes asset ids, semanticId, isCaseOf and dataSpecification key values", async (repo) => {
    const reference = (...values: string[]) => ({
      type: "ExternalReference",
      keys: values.map((value) => ({ type: "GlobalReference", value })),
    });
    await put(repo, "shell", "a", {
      id: "a",
      assetInformation: {
        assetKind: "Instance",
        globalAssetId: "urn:asset:a",
        specificAssetIds: [{ name: "serial", value: "42" }],
      },
    });
    await put(repo, "shell", "b", {
      id: "b",
      assetInformation: { assetKind: "Instance", specificAssetIds: [{ name: "serial", value: "42" }] },
    });
    assert.deepEqual(await ids(repo, "shell", [assetIdTerm("globalAssetId", "urn:asset:a")]), ["a"]);
    assert.deepEqual(await ids(repo, "shell", [assetIdTerm("serial", "42")]), ["a", "b"]);
    // Several terms: the rarest one's identifiables.
    assert.deepEqual(
      await ids(repo, "shell", [assetIdTerm("serial", "42"), assetIdTerm("globalAssetId", "urn:asset:a")]),
      ["a"],
    );
    assert.deepEqual(await ids(repo, "shell", [assetIdTerm("serial", "42"), assetIdTerm("serial", "43")]), []);
    assert.deepEqual(await ids(repo, "shell", [assetIdTerm("serial", "4")]), []);

    await put(repo, "submodel", "sm1", { id: "sm1", idShort: "Nameplate", semanticId: reference("urn:np", "v2") });
    await put(repo, "submodel", "sm2", { id: "sm2", semanticId: reference("urn:other") });
    assert.deepEqual(await ids(repo, "submodel", [indexTerm("semanticId", "v2")]), ["sm1"]);
    assert.deepEqual(await ids(repo, "submodel", [indexTerm("semanticId", "urn:other")]), ["sm2"]);
    assert.deepEqual(await ids(repo, "submodel", [indexTerm("idShort", "Nameplate")]), ["sm1"]);

    await put(repo, "concept-description", "cd1", {
      id: "cd1",
      isCaseOf: [reference("urn:eclass:1"), reference("urn:iec:2")],
      embeddedDataSpecifications: [{ dataSpecification: reference("urn:ds:iec61360"), dataSpecificationContent: {} }],
    });
    await put(repo, "concept-description", "cd2", { id: "cd2", isCaseOf: [reference("urn:iec:2")] });
    assert.deepEqual(await ids(repo, "concept-description", [indexTerm("isCaseOf", "urn:iec:2")]), ["cd1", "cd2"]);
    assert.deepEqual(await ids(repo, "concept-description", [indexTerm("isCaseOf", "urn:eclass:1")]), ["cd1"]);
    assert.deepEqual(await ids(repo, "concept-description", [indexTerm("dataSpecificationRef", "urn:ds:iec61360")]), [
      "cd1",
    ]);
    // A changed asset id moves: the old term no longer finds the shell.
    await put(repo, "shell", "a", {
      id: "a",
      assetInformation: { assetKind: "Instance", globalAssetId: "urn:asset:a2" },
    });
    assert.deepEqual(await ids(repo, "shell", [assetIdTerm("serial", "42")]), ["b"]);
    assert.deepEqual(await ids(repo, "shell", [assetIdTerm("globalAssetId", "urn:asset:a2")]), ["a"]);
  });

  test("filter index: keyset pages in creation order; inserts and deletes between pages neither repeat nor skip", async (repo) => {
    for (let i = 0; i < 7; i++)
      await put(repo, "submodel", `m${i}`, { id: `m${i}`, idShort: i % 2 === 0 ? "Even" : "Odd" });
    const even = [indexTerm("idShort", "Even")];
    const first = await repo.listIdentifiablesByTerms("submodel", even, { limit: 2 });
    assert.deepEqual(
      first.items.map((i) => i.id),
      ["m0", "m2"],
    );
    assert.ok(first.cursor);
    await repo.commit(commit([{ op: "delete-identifiable", kind: "submodel", id: "m4" }]));
    await put(repo, "submodel", "m7", { id: "m7", idShort: "Even" });
    const second = await repo.listIdentifiablesByTerms("submodel", even, { cursor: first.cursor, limit: 2 });
    assert.deepEqual(
      second.items.map((i) => i.id),
      ["m6", "m7"],
    );
    assert.equal(second.cursor, undefined);
    // The cursors are listIdentifiables' ones: either continues the other's page.
    const plain = await repo.listIdentifiables("submodel", { limit: 3 });
    const rest = await repo.listIdentifiablesByTerms("submodel", even, { cursor: plain.cursor, limit: 10 });
    assert.deepEqual(
      rest.items.map((i) => i.id),
      ["m6", "m7"],
    );
    const back = await repo.listIdentifiables("submodel", { cursor: first.cursor, limit: 1 });
    assert.deepEqual(
      back.items.map((i) => i.id),
      ["m3"],
    );
    assert.deepEqual(await repo.listIdentifiablesByTerms("submodel", even, { limit: 0 }), { items: [] });
    await assert.rejects(
      repo.listIdentifiablesByTerms("submodel", even, { cursor: "!!not a cursor!!", limit: 2 }),
      /cursor/i,
    );
  });

  test("filter index: a commit whose precondition fails changes no entry; batches index each commit on its own", async (repo) => {
    await put(repo, "shell", "s", { id: "s", idShort: "Before" });
    const failed = await repo.commitBatch([
      commit(
        [putOp("shell", "s", { id: "s", idShort: "After" })],
        [{ on: "identifiable", kind: "shell", id: "s", revision: 999 }],
      ),
      commit([putOp("shell", "t", { id: "t", idShort: "Before" })]),
      commit([putOp("shell", "u", { id: "u", idShort: "Before" })], [{ on: "id-free", id: "s" }]),
      commit(
        [{ op: "delete-identifiable", kind: "shell", id: "s" }],
        [{ on: "identifiable", kind: "shell", id: "s", revision: 999 }],
      ),
    ]);
    assert.deepEqual(
      failed.map((r) => r.ok),
      [false, true, false, false],
    );
    assert.deepEqual(await ids(repo, "shell", [indexTerm("idShort", "Before")]), ["s", "t"]);
    assert.deepEqual(await ids(repo, "shell", [indexTerm("idShort", "After")]), []);
  });

  test("filter index: clear empties it, and it is kept again afterwards", async (repo) => {
    await put(repo, "concept-description", "c", { id: "c", idShort: "X" });
    await repo.clear();
    assert.deepEqual(await ids(repo, "concept-description", [indexTerm("idShort", "X")]), []);
    await put(repo, "concept-description", "d", { id: "d", idShort: "X" });
    assert.deepEqual(await ids(repo, "concept-description", [indexTerm("idShort", "X")]), ["d"]);
  });
}

const draft: ChangeEventDraft = { kind: "shell.updated", id: "x", time: "2026-01-01T00:00:00.000Z" };

function commit(ops: CommitOp[], preconditions: Commit["preconditions"] = []): Commit {
  return { preconditions, ops, event: draft };
}

function putOp(kind: IdentifiableKind, id: string, value: unknown): CommitOp {
  return { op: "put-identifiable", kind, id, json: JSON.stringify(value) };
}

async function put(repo: Repository, kind: IdentifiableKind, id: string, value: unknown): Promise<void> {
  const result = await repo.commit(commit([putOp(kind, id, value)]));
  assert.ok(result.ok);
}

/** Every candidate id, following cursors (small pages, so paging is exercised too). */
async function ids(repo: Repository, kind: IdentifiableKind, terms: string[]): Promise<string[]> {
  const found: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await repo.listIdentifiablesByTerms(kind, terms, { cursor, limit: 2 });
    found.push(...page.items.map((i) => i.id));
    cursor = page.cursor;
  } while (cursor !== undefined);
  return found;
}
