import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { strToU8 } from "fflate";
import { writeAasx } from "../../aas/index.ts";
import { createEngine } from "../create-engine.ts";
import { forgetPackageRecords } from "../packages/forget-package-records.ts";
import { packageSweepLine } from "../packages/package-sweep-log.ts";
import type { PackageSweepReport } from "../packages/stale-package-intents.ts";
import { RepositoryUnavailableError } from "../ports/index.ts";
import { base64, type FileTestEngine, fileTestEngine } from "./test-support/files.ts";

/**
 * A package write interrupted after its content committed is taken back (docs/adr/0017, amendment
 * "an interrupted package write is rolled back"): at once by the write itself, or, when even that
 * fails, by the sweep once the write's heartbeat stood still for the bound. The store failing here
 * is the FileStore (the package record's write, and everything while it is "down"); the black-box
 * suites (tests/package-interruptions-*.test.ts) cut Redis and kill the model-store.
 */

const STALE_MS = 300;

function aasx(id: string, text: string): string {
  return base64(
    writeAasx({
      environment: {
        assetAdministrationShells: [
          {
            modelType: "AssetAdministrationShell",
            id,
            idShort: "S",
            assetInformation: { assetKind: "Instance", globalAssetId: `${id}/asset` },
          },
        ],
        submodels: [
          {
            modelType: "Submodel",
            id: `${id}/sm`,
            submodelElements: [
              { modelType: "File", idShort: "Doc", contentType: "text/plain", value: "/aasx/files/doc.txt" },
            ],
          },
        ],
        conceptDescriptions: [{ modelType: "ConceptDescription", id: `${id}/cd` }],
      },
      files: [{ path: "/aasx/files/doc.txt", contentType: "text/plain", bytes: strToU8(text) }],
    }),
  );
}

/** The FileStore refuses the puts and deletes of keys that `refused` matches, as Redis refusing them would. */
function refuseWrites(
  t: FileTestEngine,
  refused: { put: (key: string) => boolean; delete?: (key: string) => boolean },
): { heal(): void } {
  const put = t.files.put.bind(t.files);
  const del = t.files.delete.bind(t.files);
  let down = true;
  t.files.put = async (key, file) => {
    if (down && refused.put(key)) throw new RepositoryUnavailableError("the connection to Redis is down");
    return await put(key, file);
  };
  t.files.delete = async (key) => {
    if (down && refused.delete?.(key)) throw new RepositoryUnavailableError("the connection to Redis is down");
    return await del(key);
  };
  return { heal: () => (down = false) };
}

async function contentOf(t: FileTestEngine, id: string): Promise<string[]> {
  const there: string[] = [];
  if ((await t.run("GetAssetAdministrationShellById", { aasId: id })).ok) there.push("shell");
  if ((await t.run("GetSubmodelById", { submodelId: `${id}/sm` })).ok) there.push("submodel");
  if ((await t.run("GetConceptDescriptionById", { cdId: `${id}/cd` })).ok) there.push("concept description");
  return there;
}

async function storedKeys(t: FileTestEngine): Promise<string[]> {
  return (await t.files.list()).map((info) => info.path);
}

const failingRecordAndClaims = {
  put: (key: string) => key.startsWith("package-info:"),
  delete: (key: string) => key.startsWith("package-claim:"),
};

describe("a package write interrupted after its content committed", () => {
  it("is rolled back at once: 504 saying so, nothing left, and the same POST then succeeds", async () => {
    const t = await fileTestEngine({ example: false, packageIntentStaleMs: STALE_MS });
    const store = refuseWrites(t, { put: (key) => key.startsWith("package-info:") });
    const file = { fileName: "p.aasx", contentBase64: aasx("urn:partial", "text") };
    const reply = await t.run("PostAASXPackage", { file });
    assert.equal(reply.ok, false);
    assert.equal(!reply.ok && reply.error.code, "timeout", "503 would say nothing was written");
    assert.match(!reply.ok ? reply.error.message : "", /rolled back: nothing of it is left/);
    assert.deepEqual(await contentOf(t, "urn:partial"), []);
    assert.deepEqual(await storedKeys(t), [], "no claim, file, intent or package bytes are left");
    assert.equal(t.events.filter((event) => event.kind.endsWith(".deleted")).length, 3, "each goes with its event");

    store.heal();
    await t.ok("PostAASXPackage", { file });
    assert.deepEqual(await contentOf(t, "urn:partial"), ["shell", "submodel", "concept description"]);
  });

  it("when even the rollback fails, a sweep rolls it back once the store answers and the heartbeat stood still", async () => {
    const t = await fileTestEngine({ example: false, packageIntentStaleMs: STALE_MS });
    // The record's write fails, and so does every claim's delete: the rollback stops at the first.
    const store = refuseWrites(t, failingRecordAndClaims);
    const file = { fileName: "p.aasx", contentBase64: aasx("urn:left", "text") };
    const message = await t.fails("PostAASXPackage", { file }, "timeout");
    assert.match(message, /rolling back the package's content failed too .*rolled back once the store answers again/);
    assert.ok((await storedKeys(t)).includes(`package-pending:${intentId(await storedKeys(t))}`));

    store.heal();
    await eventually(async () => (await storedKeys(t)).length === 0, STALE_MS * 10);
    assert.deepEqual(await contentOf(t, "urn:left"), []);
    assert.deepEqual((await t.ok("GetAllAASXPackageIds", {})).value.items, []);
    await t.ok("PostAASXPackage", { file });
    assert.deepEqual(await contentOf(t, "urn:left"), ["shell", "submodel", "concept description"]);
  });

  it("two engines on one store (replicas) both sweep the intent left behind: rolled back once, no harm done", async () => {
    const t = await fileTestEngine({ example: false, packageIntentStaleMs: STALE_MS });
    const replica = createEngine({ repository: t.repository, fileStore: t.files, packageIntentStaleMs: STALE_MS });
    const store = refuseWrites(t, failingRecordAndClaims);
    const file = { fileName: "p.aasx", contentBase64: aasx("urn:replicas", "text") };
    await t.fails("PostAASXPackage", { file }, "timeout", /failed too/);
    store.heal();
    await eventually(async () => (await storedKeys(t)).length === 0, STALE_MS * 10);
    // Both sweeps have had their turns by now, each after the other's rollback.
    await sleep(STALE_MS * 2);
    assert.deepEqual(await contentOf(t, "urn:replicas"), []);
    assert.deepEqual(await storedKeys(t), []);
    await t.ok("PostAASXPackage", { file });
    assert.deepEqual(await contentOf(t, "urn:replicas"), ["shell", "submodel", "concept description"]);
    await replica.close();
  });

  it("a PUT interrupted after the old content went removes the new content and the package too", async () => {
    const t = await fileTestEngine({ example: false, packageIntentStaleMs: STALE_MS });
    const first = { fileName: "v1.aasx", contentBase64: aasx("urn:put", "version 1") };
    const { packageId } = (await t.ok("PostAASXPackage", { file: first })).value;
    const store = refuseWrites(t, { put: (key) => key.startsWith("package-info:") });
    const second = { fileName: "v2.aasx", contentBase64: aasx("urn:put", "version 2") };
    const message = await t.fails("PutAASXByPackageId", { packageId, file: second }, "timeout");
    assert.match(message, /the package is removed \(its old content was already gone\)/);
    assert.deepEqual(await contentOf(t, "urn:put"), []);
    await t.fails("GetAASXByPackageId", { packageId }, "not-found");
    assert.deepEqual(await storedKeys(t), []);

    store.heal();
    await t.ok("PostAASXPackage", { file: second });
    assert.deepEqual(await contentOf(t, "urn:put"), ["shell", "submodel", "concept description"]);
  });

  it("a PUT or DELETE of a package whose write is under way or left behind is a 409 until it is rolled back", async () => {
    const t = await fileTestEngine({ example: false, packageIntentStaleMs: STALE_MS });
    const file = { fileName: "v1.aasx", contentBase64: aasx("urn:busy", "version 1") };
    const { packageId } = (await t.ok("PostAASXPackage", { file })).value;
    const store = refuseWrites(t, failingRecordAndClaims);
    await t.fails("PutAASXByPackageId", { packageId, file }, "timeout", /rolling back .* failed too/);
    // While the store still refuses: the write's own process retries its rollback, and meanwhile
    // the package is being rolled back.
    await t.fails("DeleteAASXByPackageId", { packageId }, "conflict", /being rolled back/);
    store.heal();
    await eventually(async () => (await storedKeys(t)).length === 0, STALE_MS * 10);
    await t.fails("DeleteAASXByPackageId", { packageId }, "not-found");
  });
});

describe("a package rollback takes back only what its own write committed", () => {
  /** Two submodels of 3,000 Properties each: more than one import batch (5,000 operations). */
  function twoBatches(id: string): string {
    const big = (sm: string) => ({
      modelType: "Submodel",
      id: sm,
      submodelElements: Array.from({ length: 3_000 }, (_, i) => ({
        modelType: "Property",
        idShort: `P${i}`,
        valueType: "xs:int",
        value: String(i),
      })),
    });
    return base64(writeAasx({ environment: { submodels: [big(`${id}/a`), big(`${id}/b`)] }, files: [] }));
  }

  it("an id the interrupted write never reached, created by another client meanwhile, survives the sweep", async () => {
    const t = await fileTestEngine({ example: false, packageIntentStaleMs: STALE_MS });
    // The second batch (submodel b) fails, and so do the claims' deletes: the rollback stops, the
    // intent stays for the sweep.
    const commitBatch = t.repository.commitBatch.bind(t.repository);
    let down = true;
    t.repository.commitBatch = async (commits) => {
      const second = commits.some((commit) => commit.ops.some((op) => "id" in op && op.id === "urn:reached/b"));
      if (down && second) throw new RepositoryUnavailableError("the connection to Redis is down");
      return await commitBatch(commits);
    };
    const store = refuseWrites(t, { put: () => false, delete: (key) => key.startsWith("package-claim:") });
    await t.fails(
      "PostAASXPackage",
      { file: { fileName: "p.aasx", contentBase64: twoBatches("urn:reached") } },
      "timeout",
    );
    down = false;
    store.heal();
    // Another client creates the id the package had planned but not written.
    await t.ok("PostSubmodel", {
      body: JSON.stringify({ modelType: "Submodel", id: "urn:reached/b", idShort: "Mine" }),
    });
    await eventually(
      async () => !(await storedKeys(t)).some((key) => key.startsWith("package-pending:")),
      STALE_MS * 10,
    );
    assert.equal((await t.run("GetSubmodelById", { submodelId: "urn:reached/a" })).ok, false, "the package's own went");
    const mine = await t.run("GetSubmodelById", { submodelId: "urn:reached/b" });
    assert.ok(mine.ok, "the other client's submodel must stay");
    assert.equal((mine.value as { idShort?: string }).idShort, "Mine");
  });

  it("two posts of packages with the same ids at once: the loser's rollback leaves the winner's content whole", async () => {
    const t = await fileTestEngine({ example: false, packageIntentStaleMs: STALE_MS });
    // Both posts are checked (their ids free) before either commits: every commit waits until both
    // have recorded their intents, then they go in the order they came.
    const commitBatch = t.repository.commitBatch.bind(t.repository);
    let bothUnderWay: Promise<void> | undefined;
    t.repository.commitBatch = async (commits) => {
      bothUnderWay ??= eventually(
        async () => (await storedKeys(t)).filter((key) => key.startsWith("package-pending:")).length === 2,
        5_000,
      );
      await bothUnderWay;
      return await commitBatch(commits);
    };
    const file = aasx("urn:twice", "same");
    const posts = await Promise.all(
      ["one", "two"].map((name) =>
        t.run("PostAASXPackage", { file: { fileName: `${name}.aasx`, contentBase64: file } }),
      ),
    );
    const won = posts.filter((reply) => reply.ok);
    assert.equal(won.length, 1, JSON.stringify(posts.map((reply) => (reply.ok ? "ok" : reply.error.message))));
    assert.deepEqual(await contentOf(t, "urn:twice"), ["shell", "submodel", "concept description"]);
    // Its claims are its own: deleting the winner takes its content with it.
    const { packageId } = won[0]!.value as { packageId: string };
    await t.ok("DeleteAASXByPackageId", { packageId });
    assert.deepEqual(await contentOf(t, "urn:twice"), []);
  });
});

describe("two writes of one package at once", () => {
  async function posted(t: FileTestEngine): Promise<string> {
    const file = { fileName: "v1.aasx", contentBase64: aasx("urn:v1", "version 1") };
    return (await t.ok("PostAASXPackage", { file })).value.packageId;
  }
  const put = (t: FileTestEngine, packageId: string, id: string) =>
    t.run("PutAASXByPackageId", { packageId, file: { fileName: `${id}.aasx`, contentBase64: aasx(id, id) } });

  it("two PUTs: one is a 409 before anything changes; the package holds the other's content, nothing of the loser's", async () => {
    const t = await fileTestEngine({ example: false, packageIntentStaleMs: 60_000 });
    const packageId = await posted(t);
    // Both have looked for a write under way, and read the package, before either begins one.
    const create = t.files.create.bind(t.files);
    let arrived = 0;
    let bothArrived = () => {};
    const both = new Promise<void>((resolve) => (bothArrived = resolve));
    t.files.create = async (key, file) => {
      if (key.startsWith("package-pending:")) {
        if (++arrived === 2) bothArrived();
        else await both;
      }
      return await create(key, file);
    };
    const replies = await Promise.all([put(t, packageId, "urn:a"), put(t, packageId, "urn:b")]);
    const won = replies.findIndex((reply) => reply.ok);
    const lost = replies[1 - won]!;
    assert.ok(won >= 0 && !lost.ok, JSON.stringify(replies));
    assert.equal(lost.error.code, "conflict", lost.error.message);
    assert.match(lost.error.message, /is being replaced or deleted/);
    const [winner, loser] = won === 0 ? ["urn:a", "urn:b"] : ["urn:b", "urn:a"];
    assert.deepEqual(await contentOf(t, winner), ["shell", "submodel", "concept description"]);
    assert.deepEqual(await contentOf(t, loser), []);
    assert.deepEqual(await contentOf(t, "urn:v1"), []);
    const described = (await t.ok("GetAllAASXPackageIds", {})).value.items;
    assert.deepEqual(
      described.map((item) => item.aasIds),
      [[winner]],
    );
    assert.ok(!(await storedKeys(t)).some((key) => key.startsWith("package-pending:")));
  });

  it("a PUT that read the package before another PUT completed is a 409 and leaves that one's content held", async () => {
    const t = await fileTestEngine({ example: false, packageIntentStaleMs: 60_000 });
    const packageId = await posted(t);
    // The second write's intent is created only once the first PUT has completed (as on a slow replica).
    let first: Promise<unknown> | undefined;
    const create = t.files.create.bind(t.files);
    let creates = 0;
    t.files.create = async (key, file) => {
      if (key.startsWith("package-pending:") && ++creates === 2) await first;
      return await create(key, file);
    };
    first = put(t, packageId, "urn:a");
    const second = await put(t, packageId, "urn:b");
    assert.ok((await first) && !second.ok, JSON.stringify(second));
    assert.equal(second.error.code, "conflict", second.error.message);
    assert.match(second.error.message, /replaced by another request meanwhile/);
    assert.deepEqual(await contentOf(t, "urn:a"), ["shell", "submodel", "concept description"]);
    assert.deepEqual(await contentOf(t, "urn:b"), []);
    // The package still holds urn:a: deleting it removes that content, nothing stays behind.
    await t.ok("DeleteAASXByPackageId", { packageId });
    assert.deepEqual(await contentOf(t, "urn:a"), []);
  });

  it("a DELETE and a PUT: one of them is a 409, and no content is left that no package holds", async () => {
    const t = await fileTestEngine({ example: false, packageIntentStaleMs: 60_000 });
    const packageId = await posted(t);
    const [deleted, replaced] = await Promise.all([
      t.run("DeleteAASXByPackageId", { packageId }),
      put(t, packageId, "urn:a"),
    ]);
    assert.equal([deleted, replaced].filter((reply) => reply.ok).length, 1, JSON.stringify([deleted, replaced]));
    // A refusal while the other is under way, or the PUT of a package deleted before it looked.
    const refused = deleted.ok ? replaced : deleted;
    assert.ok(!refused.ok && ["conflict", "not-found"].includes(refused.error.code), JSON.stringify(refused));
    const packages = (await t.ok("GetAllAASXPackageIds", {})).value.items;
    if (deleted.ok) {
      assert.equal(packages.length, 0);
      assert.deepEqual([...(await contentOf(t, "urn:v1")), ...(await contentOf(t, "urn:a"))], []);
    } else {
      assert.deepEqual(
        packages.map((item) => item.aasIds),
        [["urn:a"]],
      );
      assert.deepEqual(await contentOf(t, "urn:v1"), []);
    }
    assert.ok(!(await storedKeys(t)).some((key) => key.startsWith("package-pending:")));
  });

  it("a DELETE that died halfway is finished by the sweep: the rest of the content and the record go", async () => {
    const t = await fileTestEngine({ example: false, packageIntentStaleMs: STALE_MS });
    const settled: PackageSweepReport[] = [];
    const replica = createEngine({
      repository: t.repository,
      fileStore: t.files,
      packageIntentStaleMs: STALE_MS,
      onPackageSweep: (report) => settled.push(report),
    });
    const packageId = await posted(t);
    // The process "dies" once the first identifiable went: later commits never return, and its
    // heartbeat stops.
    const commit = t.repository.commit.bind(t.repository);
    let dead = false;
    t.repository.commit = async (one) => {
      if (dead) return await new Promise<never>(() => {});
      dead = true;
      return await commit(one);
    };
    refuseWrites(t, { put: (key) => dead && key.startsWith("package-beat:") });
    void t.run("DeleteAASXByPackageId", { packageId });
    await eventually(async () => dead, 5_000);
    assert.equal((await contentOf(t, "urn:v1")).length, 2, "one of three identifiables went before the end");
    t.repository.commit = commit;
    // The replica's sweep takes the intent for dead and finishes the delete.
    await eventually(async () => !(await storedKeys(t)).some((key) => key.startsWith("package-")), STALE_MS * 20);
    assert.deepEqual(await contentOf(t, "urn:v1"), []);
    assert.deepEqual((await t.ok("GetAllAASXPackageIds", {})).value.items, []);
    // The replica says what it did, for its log.
    assert.deepEqual(
      settled.map(({ packageId: id, write, outcome, why }) => ({ id, write, outcome, why })),
      [{ id: packageId, write: "delete", outcome: "rolled-back", why: "heartbeat stood still" }],
    );
    assert.match(packageSweepLine(settled[0]!).message, /finished an interrupted package DELETE/);
    await replica.close();
  });
});

function intentId(keys: string[]): string {
  return keys.find((key) => key.startsWith("package-pending:"))?.slice("package-pending:".length) ?? "(none)";
}

async function eventually(check: () => Promise<boolean>, withinMs: number): Promise<void> {
  const until = Date.now() + withinMs;
  while (!(await check())) {
    assert.ok(Date.now() < until, `not within ${withinMs} ms`);
    await sleep(20);
  }
}

describe("a reset and package writes do not overlap", () => {
  it("a reset while a package is being written is a 409 that changes nothing; once it is over, the reset empties the store", async () => {
    const t = await fileTestEngine({ example: false, packageIntentStaleMs: 60_000 });
    const commitBatch = t.repository.commitBatch.bind(t.repository);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let reached = false;
    t.repository.commitBatch = async (commits) => {
      reached = true;
      await held;
      return await commitBatch(commits);
    };
    const posting = t.run("PostAASXPackage", { file: { fileName: "p.aasx", contentBase64: aasx("urn:during", "x") } });
    await eventually(async () => reached, 5_000);
    await t.fails("ResetStore", {}, "conflict", /package write\(s\) are under way/);
    release();
    assert.ok((await posting).ok, "the package write goes on");
    assert.deepEqual(await contentOf(t, "urn:during"), ["shell", "submodel", "concept description"]);
    t.repository.commitBatch = commitBatch;
    await t.ok("ResetStore", {});
    assert.deepEqual(await contentOf(t, "urn:during"), []);
    assert.deepEqual(await storedKeys(t), []);
  });

  it("a package write while a reset is under way is a 409 that writes nothing; after the reset, it succeeds", async () => {
    const t = await fileTestEngine({ example: false, packageIntentStaleMs: 60_000 });
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let reached = false;
    t.resetHooks.push(async () => {
      reached = true;
      await held;
    });
    const resetting = t.run("ResetStore", {});
    await eventually(async () => reached, 5_000);
    const file = { fileName: "p.aasx", contentBase64: aasx("urn:after", "x") };
    await t.fails("PostAASXPackage", { file }, "conflict", /being reset/);
    release();
    assert.ok((await resetting).ok);
    assert.deepEqual(await storedKeys(t), [], "the reset's mark went with the files");
    await t.ok("PostAASXPackage", { file });
    assert.deepEqual(await contentOf(t, "urn:after"), ["shell", "submodel", "concept description"]);
  });
});

describe("a file store that outlived the model (embedded: model in memory, files in a folder)", () => {
  it("forgets the old model's package and import records; the files stay", async () => {
    const t = await fileTestEngine({ example: false });
    await t.ok("PostAASXPackage", { file: { fileName: "p.aasx", contentBase64: aasx("urn:old", "old text") } });
    const before = await storedKeys(t);
    assert.ok(before.some((key) => key.startsWith("package-info:")));
    assert.ok(before.includes("/aasx/files/doc.txt"));
    const forgotten = await forgetPackageRecords(t.files);
    assert.ok(forgotten >= 2, `forgot ${forgotten}`);
    const after = await storedKeys(t);
    assert.deepEqual(
      after.filter((key) => /^(package|import-files|reset-pending)/.test(key)),
      [],
      "no record, claim, intent or package bytes of the old model",
    );
    assert.ok(after.includes("/aasx/files/doc.txt"), "the file itself stays");
    assert.deepEqual((await t.ok("GetAllAASXPackageIds", {})).value.items, []);
  });
});
