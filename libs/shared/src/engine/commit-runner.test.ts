import assert from "node:assert/strict";
import { test } from "node:test";
import { CommandError } from "../contracts/index.ts";
import { createCommitRunner, type PlannedCommit } from "./commit-runner.ts";
import { DelegatingRepository } from "./delegating-repository.ts";
import { createMemoryRepository } from "./memory/memory-repository.ts";
import type { Commit, CommitResult, Repository } from "./ports/index.ts";

/**
 * The group commit's overlap (docs/adr/0047): writes that arrive while a group is on its way to the
 * store are planned meanwhile, on top of it, and sent the moment it comes back committed. The store
 * is the memory repository; `HeldCommits` holds its commitBatch calls until released, as a slow
 * Redis (an fsync) would, so the tests can look at what was planned meanwhile.
 */
const SM = "urn:test:sm";
const TARGET = `${SM}#p`;

class HeldCommits extends DelegatingRepository {
  held: { release(): void; fail(error: unknown): void }[] = [];
  calls: Commit[][] = [];
  hold = true;
  override async commitBatch(commits: Commit[]): Promise<CommitResult[]> {
    this.calls.push(commits);
    if (this.hold)
      await new Promise<void>((release, fail) => {
        this.held.push({ release, fail });
      });
    return await this.base.commitBatch(commits);
  }
  /** Lets the held calls go on, in order. */
  releaseAll(): void {
    for (const h of this.held.splice(0)) h.release();
  }
}

/** The memory store as the runner sees it (commitsInProcess), counting how commits reach it. */
class CountedCommits extends DelegatingRepository {
  readonly commitsInProcess = true;
  single = 0;
  batches = 0;
  override commit(commit: Commit): Promise<CommitResult> {
    this.single++;
    return this.base.commit(commit);
  }
  override commitBatch(commits: Commit[]): Promise<CommitResult[]> {
    this.batches++;
    return this.base.commitBatch(commits);
  }
}

async function setUp(inProcess = false) {
  const memory = createMemoryRepository();
  await memory.commit({
    preconditions: [],
    ops: [
      { op: "put-identifiable", kind: "submodel", id: SM, json: JSON.stringify({ modelType: "Submodel", id: SM }) },
      {
        op: "put-element",
        submodelId: SM,
        path: "p",
        json: JSON.stringify({ modelType: "Property", idShort: "p", valueType: "xs:string", value: "0" }),
        insert: { parentPath: "", segment: "p" },
      },
    ],
    event: { kind: "submodel.created", id: SM, time: new Date().toISOString() },
  });
  const store = new HeldCommits(memory);
  const counted = new CountedCommits(memory);
  const runner = createCommitRunner(inProcess ? counted : store, undefined);
  const planned: string[] = [];
  /** A value write as PATCH $value plans it: read, compare-and-set on what was read, rewrite. */
  const write = (value: string, ifMatch?: number) =>
    runner.batched(TARGET, async (reads: Repository): Promise<PlannedCommit> => {
      planned.push(value);
      const [old] = await reads.getElements(SM, ["p"]);
      if (ifMatch !== undefined && old!.revision !== ifMatch)
        throw new CommandError("precondition-failed", "If-Match does not match the current revision");
      return {
        commit: {
          preconditions: [
            { on: "element", submodelId: SM, path: "p", revision: old!.revision, orderKey: old!.orderKey },
          ],
          ops: [
            { op: "put-element", submodelId: SM, path: "p", json: JSON.stringify({ ...JSON.parse(old!.json), value }) },
          ],
          event: { kind: "element.value-changed", id: SM, idShortPath: "p", time: new Date().toISOString() },
        },
      };
    });
  const stored = async () => {
    const [record] = await memory.getElements(SM, ["p"]);
    return { value: (JSON.parse(record!.json) as { value: string }).value, revision: record!.revision };
  };
  return { memory, store, counted, write, planned, stored };
}

const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

test("writes that arrive while a group is in flight are planned meanwhile and sent with the seqs it got", async () => {
  const { store, write, planned, stored } = await setUp();
  const first = write("1");
  await turns();
  assert.equal(store.calls.length, 1, "the first write is on its way");
  const later = [write("2"), write("3"), write("4")];
  await turns();
  assert.deepEqual(planned, ["1", "2", "3", "4"], "planned while the first group is still in flight");
  assert.equal(store.calls.length, 1, "nothing more sent before the first group came back");
  store.hold = false;
  store.releaseAll();
  const events = await Promise.all([first, ...later]);
  assert.equal(store.calls.length, 2, "the three planned meanwhile go in one call");
  const revisions = events.map((e) => e.revision);
  assert.deepEqual(
    revisions,
    revisions.map((_, i) => revisions[0]! + i),
    "committed in arrival order",
  );
  assert.deepEqual(await stored(), { value: "4", revision: revisions[3] });
  assert.deepEqual(planned, ["1", "2", "3", "4"], "no write planned twice");
});

test("a group planned on top of one whose commit failed is not sent but planned again, in order", async () => {
  const { memory, store, write, planned, stored } = await setUp();
  const before = await stored();
  const first = write("a");
  await turns();
  // Another replica writes the element while the first group waits: its compare-and-set will fail.
  const [record] = await memory.getElements(SM, ["p"]);
  const other = await memory.commit({
    preconditions: [],
    ops: [{ op: "put-element", submodelId: SM, path: "p", json: record!.json.replace('"0"', '"other"') }],
    event: { kind: "element.value-changed", id: SM, idShortPath: "p", time: new Date().toISOString() },
  });
  assert.ok(other.ok);
  const later = [write("b"), write("c")];
  await turns();
  assert.deepEqual(planned, ["a", "b", "c"]);
  store.hold = false;
  store.releaseAll();
  const events = await Promise.all([first, ...later]);
  const revisions = events.map((e) => e.revision);
  assert.ok(revisions[0]! > other.seq && revisions[0]! < revisions[1]! && revisions[1]! < revisions[2]!, "in order");
  assert.deepEqual(await stored(), { value: "c", revision: revisions[2] });
  assert.ok(before.revision < other.seq);
  // "a" failed its check; "b" and "c", planned on top of it, were never sent on that plan.
  assert.equal(store.calls[1]!.length, 3, "all three planned again and sent together");
  assert.deepEqual(planned, ["a", "b", "c", "a", "b", "c"]);
});

test("a refusal planned on top of a group in flight is answered only once that group committed", async () => {
  const { store, write, stored } = await setUp();
  const start = await stored();
  const first = write("x");
  await turns();
  // If-Match names the revision before "x": planned on top of "x", it cannot match.
  const refused = write("y", start.revision);
  let settled = false;
  refused.then(
    () => (settled = true),
    () => (settled = true),
  );
  await turns();
  assert.equal(settled, false, "not answered while the group it was planned on is in flight");
  store.hold = false;
  store.releaseAll();
  await first;
  await assert.rejects(
    refused,
    (error: unknown) => error instanceof CommandError && error.code === "precondition-failed",
  );
  assert.equal((await stored()).value, "x");
});

test("when the group in flight fails, the writes planned on top of it are planned again", async () => {
  const { store, write, stored } = await setUp();
  const start = await stored();
  const first = write("lost");
  await turns();
  const refusedOnTop = write("kept", start.revision);
  await turns();
  store.hold = false;
  store.held.splice(0)[0]!.fail(new Error("store unavailable"));
  await assert.rejects(first, /store unavailable/);
  // Planned again on what the store holds: the If-Match now matches, the write happens.
  const event = await refusedOnTop;
  assert.deepEqual(await stored(), { value: "kept", revision: event.revision });
});

test("where commits cost no I/O (the memory store), a target's writes commit one by one in arrival order", async () => {
  const { counted, write, planned, stored } = await setUp(true);
  const start = await stored();
  const writes = Array.from({ length: 16 }, (_, i) => write(String(i)));
  // If-Match on the state before the 16: planned after them, so refused.
  const stale = write("stale", start.revision);
  const events = await Promise.all(writes);
  const revisions = events.map((e) => e.revision);
  assert.deepEqual(
    revisions,
    revisions.map((_, i) => start.revision + 1 + i),
    "committed in arrival order, each with its own seq",
  );
  await assert.rejects(
    stale,
    (error: unknown) => error instanceof CommandError && error.code === "precondition-failed",
  );
  assert.deepEqual(await stored(), { value: "15", revision: revisions[15] });
  assert.deepEqual(planned, [...Array.from({ length: 16 }, (_, i) => String(i)), "stale"], "each planned once");
  assert.deepEqual({ single: counted.single, batches: counted.batches }, { single: 16, batches: 0 }, "no group commit");
});
