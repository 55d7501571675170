import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Commit, CommitResult } from "@twinport/shared";
import {
  createCommitQueue,
  DEFAULT_MAX_IN_FLIGHT,
  isLargeCommit,
  LARGE_COMMIT_BYTES,
  LARGE_COMMIT_OPS,
} from "./commit-queue.ts";

/** A commit told apart by its event id; `ops` only matters for the large-commit rule. */
const commit = (id: string, ops = 1): Commit =>
  ({
    event: { kind: "submodel.updated", id, time: "" },
    preconditions: [],
    ops: Array.from({ length: ops }, () => ({ op: "touch-identifiable", kind: "submodel", id })),
  }) as Commit;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** The script runner under the queue: records each call, answers when the test says so. */
function controlledRunner() {
  const calls: { ids: string[]; answer(): void }[] = [];
  const run = (commits: Commit[]) =>
    new Promise<CommitResult[]>((resolve) => {
      calls.push({
        ids: commits.map((c) => c.event.id),
        answer: () =>
          resolve(
            commits.map((c, i) => ({ ok: true, seq: i + 1, event: { ...c.event, seq: i + 1, revision: i + 1 } })),
          ),
      });
    });
  return { calls, run };
}

describe("commit queue (group commit across callers)", () => {
  it("with one call in flight: sends the commits of one turn in one call, and holds later ones until that call answers", async () => {
    const { calls, run } = controlledRunner();
    const queue = createCommitQueue(run, () => false, 1);
    const first = [queue.submit([commit("a")]), queue.submit([commit("b")])];
    await nextTurn();
    assert.deepEqual(
      calls.map((c) => c.ids),
      [["a", "b"]],
    );
    // While a and b are on their way, c, d and e come in three later turns.
    const later = [queue.submit([commit("c")])];
    await nextTurn();
    later.push(queue.submit([commit("d")]));
    await nextTurn();
    later.push(queue.submit([commit("e")]));
    await nextTurn();
    assert.equal(calls.length, 1, "nothing more is sent while a call is in flight");
    calls[0]!.answer();
    assert.deepEqual(
      (await Promise.all(first)).map((r) => r.length),
      [1, 1],
    );
    await nextTurn();
    assert.deepEqual(
      calls.map((c) => c.ids),
      [
        ["a", "b"],
        ["c", "d", "e"],
      ],
      "the commits that waited go together",
    );
    calls[1]!.answer();
    const results = await Promise.all(later);
    assert.deepEqual(
      results.map((r) => r[0]!.ok && r[0]!.event.id),
      ["c", "d", "e"],
    );
  });

  it("by default two calls are in flight: the next turn's commits leave at once, later ones wait for an answer and go together", async () => {
    assert.equal(DEFAULT_MAX_IN_FLIGHT, 2);
    const { calls, run } = controlledRunner();
    const queue = createCommitQueue(run, () => false);
    const first = queue.submit([commit("a")]);
    await nextTurn();
    const second = queue.submit([commit("b")]);
    await nextTurn();
    assert.deepEqual(
      calls.map((c) => c.ids),
      [["a"], ["b"]],
      "a second call leaves while the first is in flight",
    );
    const later = [queue.submit([commit("c")])];
    await nextTurn();
    later.push(queue.submit([commit("d")]));
    await nextTurn();
    assert.equal(calls.length, 2, "nothing more while two calls are in flight");
    calls[1]!.answer();
    assert.equal((await second)[0]!.ok, true);
    await nextTurn();
    assert.deepEqual(
      calls.map((c) => c.ids),
      [["a"], ["b"], ["c", "d"]],
      "the commits that waited go together once a call answered",
    );
    calls[0]!.answer();
    calls[2]!.answer();
    assert.equal((await first)[0]!.ok, true);
    assert.deepEqual(
      (await Promise.all(later)).map((r) => r[0]!.ok && r[0]!.event.id),
      ["c", "d"],
    );
  });

  it("sends a large commit at once, beside a call in flight", async () => {
    const { calls, run } = controlledRunner();
    const queue = createCommitQueue(run, () => false);
    const small = queue.submit([commit("small")]);
    await nextTurn();
    const large = queue.submit([commit("large", LARGE_COMMIT_OPS + 1)]);
    assert.deepEqual(
      calls.map((c) => c.ids),
      [["small"], ["large"]],
    );
    for (const c of calls) c.answer();
    await Promise.all([small, large]);
  });

  it("sends a commit of one op but much text at once too (one huge identifiable)", async () => {
    const { calls, run } = controlledRunner();
    const queue = createCommitQueue(run, () => false);
    const small = queue.submit([commit("small")]);
    await nextTurn();
    const huge: Commit = {
      ...commit("huge"),
      ops: [{ op: "put-identifiable", kind: "shell", id: "huge", json: "x".repeat(LARGE_COMMIT_BYTES + 1) }],
    };
    const large = queue.submit([huge]);
    assert.deepEqual(
      calls.map((c) => c.ids),
      [["small"], ["huge"]],
    );
    assert.equal(isLargeCommit([commit("a", LARGE_COMMIT_OPS)]), false);
    const half = { ...huge, ops: [{ ...huge.ops[0]!, json: "x".repeat(LARGE_COMMIT_BYTES / 2 + 1) }] } as Commit;
    assert.equal(isLargeCommit([half]), false);
    assert.equal(isLargeCommit([half, half]), true, "text adds up over the commits of one call");
    for (const c of calls) c.answer();
    await Promise.all([small, large]);
  });

  it("keeps going after a call failed: the waiting commits are sent next", async () => {
    let calls = 0;
    const queue = createCommitQueue(
      async (commits) => {
        calls++;
        if (commits.some((c) => c.event.id === "bad")) throw new Error("Redis said no");
        return commits.map((c) => ({ ok: true, seq: 1, event: { ...c.event, seq: 1, revision: 1 } }));
      },
      () => false,
    );
    const bad = assert.rejects(queue.submit([commit("bad")]), /Redis said no/);
    await nextTurn();
    const good = queue.submit([commit("good")]);
    await bad;
    assert.equal((await good)[0]!.ok, true);
    assert.equal(calls, 2);
  });
});
