import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { ChangeEventDraft } from "../contracts/index.ts";
import {
  batchRevision,
  type Commit,
  type CommitOp,
  type CommitPrecondition,
  type IdentifiableKind,
  type Repository,
  type StoredElement,
} from "../engine/ports/index.ts";
import { termIndexContract } from "./term-index-contract.ts";

/**
 * The behaviour every Repository implementation must show (memory and Redis both run it).
 * `makeRepository` must return an EMPTY repository each time (e.g. a fresh key prefix);
 * the suite closes every repository it made. `cleanup` runs once after the suite.
 */
export function repositoryContract(
  name: string,
  makeRepository: () => Promise<Repository>,
  cleanup?: () => Promise<void>,
): void {
  const test = (title: string, body: (repo: Repository) => Promise<void>) =>
    it(title, async () => {
      const repo = await makeRepository();
      try {
        await body(repo);
      } finally {
        await repo.close();
      }
    });

  describe(`Repository contract: ${name}`, () => {
    if (cleanup) after(cleanup);

    termIndexContract(test);

    test("puts, gets, lists and counts identifiables of each kind", async (repo) => {
      const kinds: IdentifiableKind[] = ["shell", "submodel", "concept-description"];
      for (const kind of kinds) {
        for (let i = 0; i < 3; i++)
          await ok(repo, [], [putIdentifiable(kind, `${kind}-${i}`, { id: `${kind}-${i}`, n: i })]);
      }
      for (const kind of kinds) {
        assert.equal(await repo.countIdentifiables(kind), 3);
        const page = await repo.listIdentifiables(kind, { limit: 10 });
        assert.deepEqual(
          page.items.map((i) => i.id),
          [`${kind}-0`, `${kind}-1`, `${kind}-2`],
        );
        assert.equal(page.cursor, undefined);
        assert.ok(page.items.every((i) => i.kind === kind));
        const stored = await repo.getIdentifiable(kind, `${kind}-1`);
        assert.equal(stored?.json, JSON.stringify({ id: `${kind}-1`, n: 1 }));
        assert.equal(stored?.kind, kind);
        assert.equal(await repo.kindOf(`${kind}-2`), kind);
      }
      // A kind is part of the address: the same id asked as another kind is absent.
      assert.equal(await repo.getIdentifiable("shell", "submodel-0"), undefined);
      assert.equal(await repo.kindOf("nobody"), undefined);
    });

    test("replacing an identifiable keeps its place; deleting removes it everywhere", async (repo) => {
      for (const id of ["a", "b", "c"]) await ok(repo, [], [putIdentifiable("shell", id, { id })]);
      await ok(repo, [], [putIdentifiable("shell", "a", { id: "a", v: 2 })]);
      assert.deepEqual(
        (await repo.listIdentifiables("shell", { limit: 10 })).items.map((i) => i.id),
        ["a", "b", "c"],
      );
      await ok(repo, [], [{ op: "delete-identifiable", kind: "shell", id: "b" }]);
      assert.equal(await repo.getIdentifiable("shell", "b"), undefined);
      assert.equal(await repo.kindOf("b"), undefined);
      assert.equal(await repo.countIdentifiables("shell"), 2);
      // Re-created after a delete: it is new, so it goes to the end.
      await ok(repo, [], [putIdentifiable("shell", "b", { id: "b" })]);
      assert.deepEqual(
        (await repo.listIdentifiables("shell", { limit: 10 })).items.map((i) => i.id),
        ["a", "c", "b"],
      );
    });

    test("idempotency: the commit claims the key atomically; a second claim fails and writes nothing", async (repo) => {
      assert.equal(await repo.getIdempotencyRecord("k1"), undefined);
      const first = await repo.commit({
        preconditions: [{ on: "idempotency-key-free", key: "k1" }],
        ops: [putIdentifiable("shell", "urn:idem", { id: "urn:idem" })],
        event: draft,
        idempotency: { key: "k1", fingerprint: "fp-a", ttlMs: 60_000 },
      });
      assert.ok(first.ok);
      const record = await repo.getIdempotencyRecord("k1");
      assert.equal(record?.fingerprint, "fp-a");
      assert.equal(record?.seq, first.seq);
      assert.ok(
        record?.committedAt !== undefined && Math.abs(record.committedAt - Date.now()) < 5000,
        `committedAt ${record?.committedAt}`,
      );
      assert.deepEqual(JSON.parse(record?.event ?? "null"), draft);
      assert.equal(record?.reply, undefined);

      const seqBefore = await repo.currentSeq();
      const second = await repo.commit({
        preconditions: [
          { on: "id-free", id: "urn:other" },
          { on: "idempotency-key-free", key: "k1" },
        ],
        ops: [putIdentifiable("shell", "urn:other", { id: "urn:other" })],
        event: draft,
        idempotency: { key: "k1", fingerprint: "fp-b", ttlMs: 60_000 },
      });
      assert.deepEqual(second, { ok: false, failed: 1 });
      assert.equal(await repo.currentSeq(), seqBefore, "a failed claim consumes no sequence number");
      assert.equal(await repo.getIdentifiable("shell", "urn:other"), undefined);
      assert.equal((await repo.getIdempotencyRecord("k1"))?.fingerprint, "fp-a");
      // Another key is free.
      const third = await repo.commit({
        preconditions: [{ on: "idempotency-key-free", key: "k2" }],
        ops: [],
        event: draft,
      });
      assert.ok(third.ok);
    });

    test("idempotency: concurrent claims of one key: exactly one commits", async (repo) => {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          repo.commit({
            preconditions: [{ on: "idempotency-key-free", key: "race" }],
            ops: [putIdentifiable("shell", `urn:race-${i}`, { i })],
            event: draft,
            idempotency: { key: "race", fingerprint: "fp", ttlMs: 60_000 },
          }),
        ),
      );
      assert.equal(results.filter((r) => r.ok).length, 1);
      assert.equal(await repo.countIdentifiables("shell"), 1);
    });

    test("idempotency: the reply is stored under the claimed key, not over another fingerprint, and expires", async (repo) => {
      // A reply for a key no commit claimed creates the record.
      await repo.putIdempotencyReply("unclaimed", "fp-u", '{"ok":true,"value":1}', 60_000);
      assert.deepEqual(await repo.getIdempotencyRecord("unclaimed"), {
        fingerprint: "fp-u",
        reply: '{"ok":true,"value":1}',
      });

      const claimed = await repo.commit({
        preconditions: [],
        ops: [],
        event: draft,
        idempotency: { key: "c", fingerprint: "fp-c", ttlMs: 60_000 },
      });
      assert.ok(claimed.ok);
      await repo.putIdempotencyReply("c", "fp-other", '{"ok":false}', 60_000);
      assert.equal(
        (await repo.getIdempotencyRecord("c"))?.reply,
        undefined,
        "another fingerprint leaves the record alone",
      );
      await repo.putIdempotencyReply("c", "fp-c", '{"ok":true,"value":null}', 60_000);
      const stored = await repo.getIdempotencyRecord("c");
      assert.equal(stored?.fingerprint, "fp-c");
      assert.equal(stored?.seq, claimed.seq);
      assert.equal(stored?.reply, '{"ok":true,"value":null}');

      const short = await repo.commit({
        preconditions: [],
        ops: [],
        event: draft,
        idempotency: { key: "short", fingerprint: "fp", ttlMs: 150 },
      });
      assert.ok(short.ok);
      assert.ok(await repo.getIdempotencyRecord("short"));
      await sleep(300);
      assert.equal(await repo.getIdempotencyRecord("short"), undefined);
      const again = await repo.commit({
        preconditions: [{ on: "idempotency-key-free", key: "short" }],
        ops: [],
        event: draft,
      });
      assert.ok(again.ok, "an expired key is free again");
      await repo.clear();
      assert.equal(await repo.getIdempotencyRecord("c"), undefined, "clear() removes idempotency records");
    });

    test("id-free holds across kinds", async (repo) => {
      await ok(repo, [], [putIdentifiable("concept-description", "urn:x", {})]);
      const result = await repo.commit(
        commit(
          [
            { on: "id-free", id: "fresh" },
            { on: "id-free", id: "urn:x" },
          ],
          [putIdentifiable("shell", "urn:x", {})],
        ),
      );
      assert.deepEqual(result, { ok: false, failed: 1 });
      assert.equal(await repo.getIdentifiable("shell", "urn:x"), undefined);
      assert.equal(await repo.kindOf("urn:x"), "concept-description");
      await ok(repo, [{ on: "id-free", id: "fresh" }], [putIdentifiable("submodel", "fresh", {})]);
      assert.equal(await repo.kindOf("fresh"), "submodel");
    });

    test("revision = seq; seq is gap-free; a failed precondition writes nothing and uses no seq", async (repo) => {
      const start = await repo.currentSeq();
      const first = await ok(
        repo,
        [{ on: "identifiable", kind: "submodel", id: "sm", revision: null }],
        [putIdentifiable("submodel", "sm", { v: 1 })],
      );
      assert.equal(first.seq, start + 1);
      assert.equal((await repo.getIdentifiable("submodel", "sm"))?.revision, start + 1);

      const failed = await repo.commit(
        commit(
          [
            { on: "identifiable", kind: "submodel", id: "sm", revision: start + 1 },
            { on: "identifiable", kind: "submodel", id: "sm", revision: 999_999 },
          ],
          [putIdentifiable("submodel", "sm", { v: "lost" }), putIdentifiable("shell", "lost", {})],
        ),
      );
      assert.deepEqual(failed, { ok: false, failed: 1 });
      assert.equal(await repo.currentSeq(), start + 1);
      assert.equal((await repo.getIdentifiable("submodel", "sm"))?.json, JSON.stringify({ v: 1 }));
      assert.equal(await repo.getIdentifiable("shell", "lost"), undefined);

      const absent = await repo.commit(
        commit(
          [{ on: "identifiable", kind: "submodel", id: "sm", revision: null }],
          [putIdentifiable("submodel", "sm", {})],
        ),
      );
      assert.deepEqual(absent, { ok: false, failed: 0 });
      const missing = await repo.commit(commit([{ on: "identifiable", kind: "shell", id: "nope", revision: 1 }], []));
      assert.deepEqual(missing, { ok: false, failed: 0 });

      const second = await ok(
        repo,
        [{ on: "identifiable", kind: "submodel", id: "sm", revision: start + 1 }],
        [putIdentifiable("submodel", "sm", { v: 2 })],
      );
      assert.equal(second.seq, start + 2);
      const third = await ok(repo, [], [putIdentifiable("shell", "other", {})]);
      assert.equal(third.seq, start + 3);
      assert.equal(await repo.currentSeq(), start + 3);
      assert.equal((await repo.getIdentifiable("submodel", "sm"))?.revision, start + 2);
      assert.equal((await repo.getIdentifiable("shell", "other"))?.revision, start + 3);
    });

    test("element preconditions compare revisions; null means absent", async (repo) => {
      const created = await ok(repo, [], [insert("sm", "", "a", { a: 1 })]);
      const [a] = await repo.getElements("sm", ["a"]);
      assert.equal(a?.revision, created.seq);
      assert.deepEqual(
        await repo.commit(commit([{ on: "element", submodelId: "sm", path: "a", revision: null }], [])),
        { ok: false, failed: 0 },
      );
      assert.deepEqual(
        await repo.commit(commit([{ on: "element", submodelId: "sm", path: "a", revision: created.seq + 7 }], [])),
        { ok: false, failed: 0 },
      );
      assert.deepEqual(await repo.commit(commit([{ on: "element", submodelId: "sm", path: "b", revision: 1 }], [])), {
        ok: false,
        failed: 0,
      });
      const updated = await ok(
        repo,
        [
          { on: "element", submodelId: "sm", path: "a", revision: created.seq },
          { on: "element", submodelId: "sm", path: "b", revision: null },
        ],
        [{ op: "put-element", submodelId: "sm", path: "a", json: '{"a":2}' }],
      );
      const [again] = await repo.getElements("sm", ["a"]);
      assert.equal(again?.json, '{"a":2}');
      assert.equal(again?.revision, updated.seq);
      assert.equal(again?.orderKey, a?.orderKey, "rewriting an element keeps its place");
    });

    test("a batch applies its commits in order, each with its own seq; a failed one writes nothing", async (repo) => {
      const created = await ok(repo, [], [insert("sm", "", "a", { a: 0 }), insert("sm", "", "b", { b: 0 })]);
      const at = (path: string, revision: number | null): CommitPrecondition => ({
        on: "element",
        submodelId: "sm",
        path,
        revision,
      });
      const put = (path: string, value: unknown): CommitOp => ({
        op: "put-element",
        submodelId: "sm",
        path,
        json: JSON.stringify(value),
      });
      const results = await repo.commitBatch([
        commit([at("a", created.seq)], [put("a", { a: 1 })]),
        // the state commit 0 leaves: holds
        commit([at("a", batchRevision(0))], [put("a", { a: 2 })]),
        // a stale revision: fails, writes nothing, takes no seq
        commit([at("b", null), at("a", created.seq)], [put("a", { a: 99 }), put("b", { b: 99 })]),
        // names the failed commit 2: fails too
        commit([at("a", batchRevision(2))], [put("a", { a: 98 })]),
        // independent of the failures before it
        commit([at("b", created.seq)], [put("b", { b: 1 })]),
      ]);
      assert.deepEqual(
        results.map((r) => (r.ok ? r.seq : `failed ${r.failed}`)),
        [created.seq + 1, created.seq + 2, "failed 0", "failed 0", created.seq + 3],
      );
      const [a, b] = await repo.getElements("sm", ["a", "b"]);
      assert.equal(a?.json, '{"a":2}');
      assert.equal(a?.revision, created.seq + 2);
      assert.equal(b?.json, '{"b":1}');
      assert.equal(b?.revision, created.seq + 3);
      assert.equal(await repo.currentSeq(), created.seq + 3);
      assert.deepEqual(await repo.commitBatch([]), []);
    });

    test("identifiables touched in a batch: each commit sees the touches before it, the last one stays", async (repo) => {
      await ok(repo, [], [putIdentifiable("submodel", "sm", { id: "sm" }), insert("sm", "", "a", 0)]);
      await ok(repo, [], [putIdentifiable("submodel", "gone", { id: "gone" })]);
      const touch = (id: string): CommitOp => ({ op: "touch-identifiable", kind: "submodel", id });
      const value = (n: number): CommitOp => ({ op: "put-element", submodelId: "sm", path: "a", json: String(n) });
      const at = (id: string, revision: number): CommitPrecondition => ({
        on: "identifiable",
        kind: "submodel",
        id,
        revision,
      });
      const results = await repo.commitBatch([
        commit([], [value(1), touch("sm")]),
        // If-Match on the submodel as commit 0 leaves it: holds only if its touch is visible here
        commit([at("sm", batchRevision(0))], [value(2), touch("sm")]),
        commit([], [touch("gone")]),
        commit([], [{ op: "delete-identifiable", kind: "submodel", id: "gone" }]),
        // a touch after the delete finds nothing to touch: it must not bring the record back
        commit([], [touch("gone")]),
        commit([], [value(3), touch("sm")]),
        commit([], [putIdentifiable("submodel", "sm", { id: "sm", v: 2 })]),
      ]);
      assert.ok(
        results.every((r) => r.ok),
        JSON.stringify(results),
      );
      const seqs = results.map((r) => (r.ok ? r.seq : -1));
      const sm = await repo.getIdentifiable("submodel", "sm");
      assert.equal(sm?.revision, seqs[6], "the put after the touches is what stays");
      assert.equal(sm?.json, JSON.stringify({ id: "sm", v: 2 }));
      assert.equal(await repo.getIdentifiable("submodel", "gone"), undefined);
      const [a] = await repo.getElements("sm", ["a"]);
      assert.equal(a?.json, "3");
      assert.equal(a?.revision, seqs[5]);

      // Without a put after them, the submodel ends at the revision of its last touch.
      const more = await repo.commitBatch([commit([], [value(4), touch("sm")]), commit([], [value(5), touch("sm")])]);
      assert.ok(more.every((r) => r.ok));
      assert.equal((await repo.getIdentifiable("submodel", "sm"))?.revision, more[1]?.ok ? more[1].seq : -1);
      assert.equal((await repo.getIdentifiable("submodel", "sm"))?.json, JSON.stringify({ id: "sm", v: 2 }));
    });

    test("concurrent single commits and batches interleave as whole commits", async (repo) => {
      await ok(repo, [], [insert("sm", "", "n", 0)]);
      // Many callers in one turn: the Redis implementation sends them as one script call.
      const writes = Array.from({ length: 40 }, (_, i) =>
        i % 2 === 0
          ? repo.commit(commit([], [{ op: "put-element", submodelId: "sm", path: "n", json: String(i) }]))
          : repo.commitBatch([
              commit([], [{ op: "put-element", submodelId: "sm", path: "n", json: String(i) }]),
              commit([], [{ op: "touch-element", submodelId: "sm", path: "n" }]),
            ]),
      );
      const settled = await Promise.all(writes);
      const seqs = settled.flatMap((r) => (Array.isArray(r) ? r : [r])).map((r) => (r.ok ? r.seq : -1));
      assert.equal(new Set(seqs).size, 60, "every commit got its own seq");
      assert.ok(
        seqs.every((s, i) => i === 0 || s > seqs[i - 1]!),
        "in the order they were handed in",
      );
      const [n] = await repo.getElements("sm", ["n"]);
      assert.equal(n?.json, "39");
      assert.equal(n?.revision, Math.max(...seqs));
    });

    test("the commit returns the event stamped with seq and revision", async (repo) => {
      const draft: ChangeEventDraft = {
        kind: "element.value-changed",
        id: "sm",
        idShortPath: "a.b",
        payload: { value: [1, "x", [], {}], big: 12345678901234567890 },
        origin: "test",
        correlationId: "c-1",
        time: "2026-01-01T00:00:00.000Z",
      };
      const result = await repo.commit({
        preconditions: [],
        ops: [putIdentifiable("submodel", "sm", {})],
        event: draft,
      });
      assert.ok(result.ok);
      assert.deepEqual(result.event, { ...draft, seq: result.seq, revision: result.seq });
    });

    test("children are listed in insertion order; list items are appended and numbered by position", async (repo) => {
      await ok(
        repo,
        [],
        [
          insert("sm", "", "z", {}),
          insert("sm", "", "a", {}),
          insert("sm", "", "m", {}),
          insert("sm", "", "L", { list: true }),
        ],
      );
      await ok(repo, [], [insert("sm", "", "b", {})]);
      assert.deepEqual(await childPaths(repo, "sm", ""), ["z", "a", "m", "L", "b"]);
      await ok(repo, [], [item("sm", "L", 0, { i: 0 }), item("sm", "L", 1, { i: 1 })]);
      await ok(repo, [], [item("sm", "L", 2, { i: 2 })]);
      assert.deepEqual(await childPaths(repo, "sm", "L"), ["L[0]", "L[1]", "L[2]"]);
      assert.equal(await repo.countChildren("sm", "L"), 3);
      assert.equal(await repo.countChildren("sm", ""), 5);
      assert.equal(await repo.countChildren("sm", "L[0]"), 0);
      assert.equal(await repo.countChildren("sm", "L[9]"), 0);
      const [a, b] = await repo.getElements("sm", ["z", "b"]);
      assert.ok(a && b && a.orderKey < b.orderKey, "orderKey increases in insertion order");
      // Another submodel's children are separate.
      await ok(repo, [], [insert("sm2", "", "only", {})]);
      assert.deepEqual(await childPaths(repo, "sm2", ""), ["only"]);
      assert.deepEqual(await childPaths(repo, "nope", ""), []);
    });

    test("getSubtree returns document order and honours maxDepth", async (repo) => {
      await ok(
        repo,
        [],
        [
          insert("sm", "", "Temperature", { t: 1 }),
          insert("sm", "", "Temp", { t: 2 }),
          insert("sm", "Temp", "Temp.x", {}),
          insert("sm", "Temp.x", "Temp.x.y", {}),
          insert("sm", "Temperature", "Temperature.inner", {}),
          insert("sm", "", "L", {}),
          item("sm", "L", 0, {}),
          item("sm", "L", 1, {}),
          item("sm", "L[0]", 0, {}),
          item("sm", "L[0]", 1, {}),
          item("sm", "L[1]", 0, {}),
          insert("sm", "L[0][1]", "L[0][1].deep", {}),
          insert("sm", "", "Te", {}),
        ],
      );
      const all = [
        "Temperature",
        "Temperature.inner",
        "Temp",
        "Temp.x",
        "Temp.x.y",
        "L",
        "L[0]",
        "L[0][0]",
        "L[0][1]",
        "L[0][1].deep",
        "L[1]",
        "L[1][0]",
        "Te",
      ];
      assert.deepEqual(paths(await repo.getSubtree("sm", "")), all);
      assert.deepEqual(paths(await repo.getSubtree("sm", "", 0)), []);
      assert.deepEqual(paths(await repo.getSubtree("sm", "", 1)), ["Temperature", "Temp", "L", "Te"]);
      assert.deepEqual(paths(await repo.getSubtree("sm", "", 2)), [
        "Temperature",
        "Temperature.inner",
        "Temp",
        "Temp.x",
        "L",
        "L[0]",
        "L[1]",
        "Te",
      ]);
      assert.deepEqual(paths(await repo.getSubtree("sm", "Temp")), ["Temp", "Temp.x", "Temp.x.y"]);
      assert.deepEqual(paths(await repo.getSubtree("sm", "Temp", 0)), ["Temp"]);
      assert.deepEqual(paths(await repo.getSubtree("sm", "Temp", 1)), ["Temp", "Temp.x"]);
      assert.deepEqual(paths(await repo.getSubtree("sm", "Temperature")), ["Temperature", "Temperature.inner"]);
      assert.deepEqual(paths(await repo.getSubtree("sm", "Te")), ["Te"]);
      assert.deepEqual(paths(await repo.getSubtree("sm", "L[0]")), ["L[0]", "L[0][0]", "L[0][1]", "L[0][1].deep"]);
      assert.deepEqual(paths(await repo.getSubtree("sm", "L[0][1]")), ["L[0][1]", "L[0][1].deep"]);
      assert.deepEqual(paths(await repo.getSubtree("sm", "L", 1)), ["L", "L[0]", "L[1]"]);
      assert.deepEqual(await repo.getSubtree("sm", "missing"), []);
      assert.deepEqual(await repo.getSubtree("nope", ""), []);
      const subtree = await repo.getSubtree("sm", "Temp", 0);
      assert.equal(subtree[0].json, JSON.stringify({ t: 2 }));
      const [record] = await repo.getElements("sm", ["Temp"]);
      assert.deepEqual(subtree[0], record);
    });

    test("getElements answers in the order asked, undefined where missing", async (repo) => {
      const { seq } = await ok(repo, [], [insert("sm", "", "a", { a: 1 }), insert("sm", "", "b", { b: 1 })]);
      const records = await repo.getElements("sm", ["b", "missing", "a", "b"]);
      assert.deepEqual(
        records.map((r) => r && { path: r.path, json: r.json, revision: r.revision }),
        [
          { path: "b", json: '{"b":1}', revision: seq },
          undefined,
          { path: "a", json: '{"a":1}', revision: seq },
          { path: "b", json: '{"b":1}', revision: seq },
        ],
      );
      assert.deepEqual(await repo.getElements("sm", []), []);
      assert.deepEqual(await repo.getElements("other", ["a"]), [undefined]);
    });

    test("delete-element removes one record and its place", async (repo) => {
      await ok(
        repo,
        [],
        [insert("sm", "", "a", {}), insert("sm", "", "b", {}), insert("sm", "b", "b.c", {}), insert("sm", "", "c", {})],
      );
      const [b] = await repo.getElements("sm", ["b"]);
      await ok(repo, [], [{ op: "delete-element", submodelId: "sm", path: "b", orderKey: b!.orderKey }]);
      assert.deepEqual(await repo.getElements("sm", ["b"]), [undefined]);
      assert.deepEqual(await childPaths(repo, "sm", ""), ["a", "c"]);
      // Not its descendants: the engine deletes every record it means to delete.
      assert.equal((await repo.getElements("sm", ["b.c"]))[0]?.path, "b.c");
      // Re-inserted under the same name: a new place at the end.
      await ok(repo, [], [insert("sm", "", "b", {})]);
      assert.deepEqual(await childPaths(repo, "sm", ""), ["a", "c", "b"]);
      // Deleting something absent is harmless.
      await ok(repo, [], [{ op: "delete-element", submodelId: "sm", path: "ghost", orderKey: "0" }]);
    });

    test("touch ops set revisions without rewriting", async (repo) => {
      const created = await ok(
        repo,
        [],
        [
          putIdentifiable("submodel", "sm", { id: "sm" }),
          insert("sm", "", "c", { c: 1 }),
          insert("sm", "c", "c.p", { p: 1 }),
        ],
      );
      const touched = await ok(
        repo,
        [],
        [
          { op: "put-element", submodelId: "sm", path: "c.p", json: '{"p":2}' },
          { op: "touch-element", submodelId: "sm", path: "c" },
          { op: "touch-identifiable", kind: "submodel", id: "sm" },
        ],
      );
      assert.equal(touched.seq, created.seq + 1);
      const [c, p] = await repo.getElements("sm", ["c", "c.p"]);
      assert.equal(c?.revision, touched.seq);
      assert.equal(c?.json, '{"c":1}');
      assert.equal(p?.revision, touched.seq);
      const sm = await repo.getIdentifiable("submodel", "sm");
      assert.equal(sm?.revision, touched.seq);
      assert.equal(sm?.json, '{"id":"sm"}');
      // Touching what does not exist creates nothing.
      await ok(
        repo,
        [],
        [
          { op: "touch-element", submodelId: "sm", path: "ghost" },
          { op: "touch-identifiable", kind: "shell", id: "ghost" },
        ],
      );
      assert.deepEqual(await repo.getElements("sm", ["ghost"]), [undefined]);
      assert.equal(await repo.getIdentifiable("shell", "ghost"), undefined);
      assert.equal(await repo.kindOf("ghost"), undefined);
    });

    test("identifiable paging stays correct while items are inserted and deleted between pages", async (repo) => {
      const ids = Array.from({ length: 25 }, (_, i) => `id-${String(i).padStart(2, "0")}`);
      await ok(
        repo,
        [],
        ids.map((id) => putIdentifiable("shell", id, { id })),
      );
      const seen: string[] = [];
      let cursor: string | undefined;
      let round = 0;
      do {
        const page = await repo.listIdentifiables("shell", { cursor, limit: 4 });
        assert.ok(page.items.length <= 4);
        seen.push(...page.items.map((i) => i.id));
        cursor = page.cursor;
        round++;
        if (round === 2) {
          // Delete the last item returned (the cursor's own item) and one not yet returned; add one.
          await ok(
            repo,
            [],
            [
              { op: "delete-identifiable", kind: "shell", id: seen[seen.length - 1] },
              { op: "delete-identifiable", kind: "shell", id: "id-20" },
              putIdentifiable("shell", "late", {}),
            ],
          );
        }
        if (round === 3) await ok(repo, [], [{ op: "delete-identifiable", kind: "shell", id: "id-00" }]);
      } while (cursor !== undefined);
      const expected = [...ids.filter((id) => id !== "id-20"), "late"];
      assert.deepEqual(seen, expected);
      assert.ok(round >= 7);
    });

    test("a page that ends exactly at the last item has no cursor; an invalid cursor is refused", async (repo) => {
      await ok(
        repo,
        [],
        ["a", "b", "c", "d"].map((id) => putIdentifiable("submodel", id, {})),
      );
      const first = await repo.listIdentifiables("submodel", { limit: 2 });
      assert.ok(first.cursor);
      assert.match(first.cursor!, /^[A-Za-z0-9_-]+$/, "cursors are base64url");
      const second = await repo.listIdentifiables("submodel", { cursor: first.cursor, limit: 2 });
      assert.deepEqual(
        second.items.map((i) => i.id),
        ["c", "d"],
      );
      assert.equal(second.cursor, undefined);
      assert.deepEqual(await repo.listIdentifiables("shell", { limit: 3 }), { items: [] });
      await assert.rejects(repo.listIdentifiables("submodel", { cursor: "!!not a cursor!!", limit: 2 }), /cursor/i);
      await assert.rejects(repo.listChildren("a", "", { cursor: "!!not a cursor!!", limit: 2 }), /cursor/i);
    });

    test("a children cursor works only on the list that gave it: another parent's or submodel's is refused", async (repo) => {
      // Sort keys look alike in every list: another list's cursor named a place in this one, and
      // the page skipped the items before it (a black-box finding).
      for (const sm of ["sm-a", "sm-b"])
        await ok(
          repo,
          [],
          [
            insert(sm, "", "A1", {}),
            insert(sm, "", "A2", {}),
            insert(sm, "", "A3", {}),
            insert(sm, "", "C", {}),
            insert(sm, "C", "C.A1", {}),
            insert(sm, "C", "C.A2", {}),
          ],
        );
      const first = await repo.listChildren("sm-a", "", { limit: 2 });
      assert.ok(first.cursor);
      const rest = await repo.listChildren("sm-a", "", { cursor: first.cursor, limit: 10 });
      assert.deepEqual(
        rest.items.map((i) => i.path),
        ["A3", "C"],
      );
      await assert.rejects(repo.listChildren("sm-b", "", { cursor: first.cursor, limit: 10 }), /cursor/i);
      await assert.rejects(repo.listChildren("sm-a", "C", { cursor: first.cursor, limit: 10 }), /cursor/i);
      const inner = await repo.listChildren("sm-a", "C", { limit: 1 });
      assert.ok(inner.cursor);
      await assert.rejects(repo.listChildren("sm-a", "", { cursor: inner.cursor, limit: 10 }), /cursor/i);
      assert.deepEqual(
        (await repo.listChildren("sm-a", "C", { cursor: inner.cursor, limit: 10 })).items.map((i) => i.path),
        ["C.A2"],
      );
    });

    test("children paging stays correct while children are inserted and deleted between pages", async (repo) => {
      const names = Array.from({ length: 20 }, (_, i) => `e${String(i).padStart(2, "0")}`);
      await ok(
        repo,
        [],
        names.map((n) => insert("sm", "c", `c.${n}`, {})),
      );
      await ok(repo, [], [insert("sm", "", "c", {}), insert("sm", "", "c2", {}), insert("sm", "c2", "c2.x", {})]);
      const seen: string[] = [];
      let cursor: string | undefined;
      let round = 0;
      do {
        const page = await repo.listChildren("sm", "c", { cursor, limit: 3 });
        seen.push(...page.items.map((i) => i.path));
        cursor = page.cursor;
        round++;
        if (round === 2) {
          const [last, later] = await repo.getElements("sm", [seen[seen.length - 1], "c.e15"]);
          await ok(
            repo,
            [],
            [
              { op: "delete-element", submodelId: "sm", path: last!.path, orderKey: last!.orderKey },
              { op: "delete-element", submodelId: "sm", path: later!.path, orderKey: later!.orderKey },
              insert("sm", "c", "c.new", {}),
            ],
          );
        }
      } while (cursor !== undefined);
      assert.deepEqual(seen, [...names.filter((n) => n !== "e15").map((n) => `c.${n}`), "c.new"]);

      // List items: a cursor in the middle survives an item deleted before it and one appended
      // after it; the next page's items answer with their indexes as they are now.
      await ok(
        repo,
        [],
        [0, 1, 2, 3, 4, 5].map((i) => item("sm", "L", i, { i })),
      );
      const page1 = await repo.listChildren("sm", "L", { limit: 3 });
      assert.deepEqual(paths(page1.items), ["L[0]", "L[1]", "L[2]"]);
      await ok(
        repo,
        [],
        [
          { op: "delete-element", submodelId: "sm", path: "L[0]", orderKey: page1.items[0].orderKey },
          item("sm", "L", 5, { i: 6 }),
        ],
      );
      const page2 = await repo.listChildren("sm", "L", { cursor: page1.cursor, limit: 2 });
      assert.deepEqual(
        page2.items.map((r) => [r.path, r.json]),
        [
          ["L[2]", '{"i":3}'],
          ["L[3]", '{"i":4}'],
        ],
      );
      const page3 = await repo.listChildren("sm", "L", { cursor: page2.cursor, limit: 10 });
      assert.deepEqual(
        page3.items.map((r) => [r.path, r.json]),
        [
          ["L[4]", '{"i":5}'],
          ["L[5]", '{"i":6}'],
        ],
      );
      assert.equal(page3.cursor, undefined);
    });

    test("list items: append and delete at both ends and in the middle keep order and indexes", async (repo) => {
      const values = ["a", "b", "c", "d", "e"];
      await ok(repo, [], [insert("sm", "", "L", {}), ...values.map((v, i) => item("sm", "L", i, { v }))]);
      const expectList = async (expected: string[]) => {
        const subtree = await repo.getSubtree("sm", "L");
        assert.deepEqual(
          subtree.slice(1).map((r) => [r.path, r.json]),
          expected.map((v, i) => [`L[${i}]`, JSON.stringify({ v })]),
        );
        const points = await repo.getElements("sm", expected.map((_, i) => `L[${i}]`).concat(`L[${expected.length}]`));
        assert.deepEqual(
          points.map((r) => r?.json),
          [...expected.map((v) => JSON.stringify({ v })), undefined],
        );
        assert.deepEqual(
          points.map((r) => r?.path),
          [...expected.map((_, i) => `L[${i}]`), undefined],
        );
        assert.equal(await repo.countChildren("sm", "L"), expected.length);
        assert.deepEqual(
          await childPaths(repo, "sm", "L"),
          expected.map((_, i) => `L[${i}]`),
        );
      };
      const del = (index: number): CommitOp => ({
        op: "delete-element",
        submodelId: "sm",
        path: `L[${index}]`,
        orderKey: "",
      });
      const [before] = await repo.getElements("sm", ["L[3]"]);
      await ok(repo, [], [del(0)]);
      await expectList(["b", "c", "d", "e"]);
      // The shifted item kept its record: same revision, same orderKey, new index.
      const [shifted] = await repo.getElements("sm", ["L[2]"]);
      assert.deepEqual({ ...shifted, path: "L[3]" }, before);
      await ok(repo, [], [del(3)]);
      await expectList(["b", "c", "d"]);
      await ok(repo, [], [del(1)]);
      await expectList(["b", "d"]);
      await ok(repo, [], [item("sm", "L", 2, { v: "z" })]);
      await expectList(["b", "d", "z"]);
      // Several deletes in one commit, last first (as the engine sends them).
      await ok(repo, [], [del(2), del(0)]);
      await expectList(["d"]);
      await ok(repo, [], [del(0)]);
      await expectList([]);
      await ok(repo, [], [item("sm", "L", 0, { v: "new" })]);
      await expectList(["new"]);
      // Past the end: nothing to delete, touch or rewrite.
      await ok(repo, [], [del(5), { op: "touch-element", submodelId: "sm", path: "L[5]" }]);
      await expectList(["new"]);
    });

    test("nested lists and their descendants resolve by position at every level", async (repo) => {
      await ok(
        repo,
        [],
        [
          insert("sm", "", "L", {}),
          ...[0, 1, 2].map((i) => item("sm", "L", i, { l: i })),
          ...[0, 1, 2].map((i) => insert("sm", `L[${i}]`, `L[${i}].M`, { m: i })),
          ...[0, 1, 2].flatMap((i) => [0, 1].map((j) => item("sm", `L[${i}].M`, j, { i, j }))),
          ...[0, 1, 2].flatMap((i) =>
            [0, 1].map((j) => insert("sm", `L[${i}].M[${j}]`, `L[${i}].M[${j}].x`, { x: `${i}${j}` })),
          ),
        ],
      );
      assert.equal((await repo.getElements("sm", ["L[2].M[1].x"]))[0]?.json, JSON.stringify({ x: "21" }));
      // Delete L[0] (its subtree, last record first, as the engine does).
      const doomed = await repo.getSubtree("sm", "L[0]");
      await ok(
        repo,
        [],
        doomed
          .reverse()
          .map((r) => ({ op: "delete-element" as const, submodelId: "sm", path: r.path, orderKey: r.orderKey })),
      );
      assert.deepEqual(
        (await repo.getSubtree("sm", "L")).map((r) => [r.path, r.json]),
        [
          ["L", "{}"],
          ...[1, 2].flatMap((i, at) => [
            [`L[${at}]`, JSON.stringify({ l: i })],
            [`L[${at}].M`, JSON.stringify({ m: i })],
            ...[0, 1].flatMap((j) => [
              [`L[${at}].M[${j}]`, JSON.stringify({ i, j })],
              [`L[${at}].M[${j}].x`, JSON.stringify({ x: `${i}${j}` })],
            ]),
          ]),
        ],
      );
      const [x] = await repo.getElements("sm", ["L[1].M[1].x"]);
      assert.deepEqual([x?.path, x?.json], ["L[1].M[1].x", JSON.stringify({ x: "21" })]);
      assert.equal((await repo.getElements("sm", ["L[2].M[0].x"]))[0], undefined);
      // Writes through indexed paths reach the item now at that index.
      await ok(
        repo,
        [],
        [
          { op: "put-element", submodelId: "sm", path: "L[0].M[1].x", json: '{"x":"new"}' },
          { op: "touch-element", submodelId: "sm", path: "L[0].M" },
        ],
      );
      assert.equal((await repo.getElements("sm", ["L[0].M[1].x"]))[0]?.json, '{"x":"new"}');
      assert.deepEqual(paths(await repo.getSubtree("sm", "L[1].M", 1)), ["L[1].M", "L[1].M[0]", "L[1].M[1]"]);
      assert.deepEqual(
        paths(
          (
            await repo.listChildren("sm", "L[1].M", {
              limit: 1,
              cursor: (await repo.listChildren("sm", "L[1].M", { limit: 1 })).cursor,
            })
          ).items,
        ),
        ["L[1].M[1]"],
      );
      // The whole submodel answers external paths too.
      assert.ok(paths(await repo.getSubtree("sm", "")).includes("L[1].M[1].x"));
    });

    test("preconditions on indexed paths resolve inside the commit, with the item's orderKey", async (repo) => {
      const { seq } = await ok(
        repo,
        [],
        [insert("sm", "", "L", {}), ...[0, 1, 2].map((i) => item("sm", "L", i, { i }))],
      );
      const [first, second] = await repo.getElements("sm", ["L[0]", "L[1]"]);
      assert.ok(
        await repo
          .commit(
            commit([{ on: "element", submodelId: "sm", path: "L[1]", revision: seq, orderKey: second!.orderKey }], []),
          )
          .then((r) => r.ok),
      );
      assert.deepEqual(
        await repo.commit(commit([{ on: "element", submodelId: "sm", path: "L[3]", revision: seq }], [])),
        { ok: false, failed: 0 },
      );
      assert.ok(
        (await repo.commit(commit([{ on: "element", submodelId: "sm", path: "L[3]", revision: null }], []))).ok,
      );
      // The item that was L[1] is L[0] after a shift; L[1] has the same revision but another orderKey.
      await ok(repo, [], [{ op: "delete-element", submodelId: "sm", path: "L[0]", orderKey: first!.orderKey }]);
      assert.deepEqual(
        await repo.commit(
          commit([{ on: "element", submodelId: "sm", path: "L[1]", revision: seq, orderKey: second!.orderKey }], []),
        ),
        { ok: false, failed: 0 },
      );
      assert.ok(
        (
          await repo.commit(
            commit([{ on: "element", submodelId: "sm", path: "L[0]", revision: seq, orderKey: second!.orderKey }], []),
          )
        ).ok,
      );
      assert.ok((await repo.commit(commit([{ on: "element", submodelId: "sm", path: "L[1]", revision: seq }], []))).ok);
      // A precondition sees the state before its own commit's ops.
      const deleted = await repo.commit(
        commit(
          [{ on: "element", submodelId: "sm", path: "L[1]", revision: seq }],
          [{ op: "delete-element", submodelId: "sm", path: "L[0]", orderKey: "" }],
        ),
      );
      assert.ok(deleted.ok);
      assert.equal(await repo.countChildren("sm", "L"), 1);
    });

    test("deleting a submodel drops all its element records", async (repo) => {
      await ok(
        repo,
        [],
        [
          putIdentifiable("submodel", "sm", {}),
          insert("sm", "", "a", {}),
          insert("sm", "a", "a.b", {}),
          putIdentifiable("submodel", "keep", {}),
          insert("keep", "", "a", {}),
        ],
      );
      await ok(repo, [], [{ op: "delete-identifiable", kind: "submodel", id: "sm" }]);
      assert.deepEqual(await repo.getElements("sm", ["a", "a.b"]), [undefined, undefined]);
      assert.deepEqual(await repo.getSubtree("sm", ""), []);
      assert.deepEqual((await repo.listChildren("sm", "", { limit: 10 })).items, []);
      assert.deepEqual(paths(await repo.getSubtree("keep", "")), ["a"]);
      // Re-created: starts empty, and new elements work as usual.
      await ok(repo, [], [putIdentifiable("submodel", "sm", {}), insert("sm", "", "z", {})]);
      assert.deepEqual(paths(await repo.getSubtree("sm", "")), ["z"]);
    });

    test("clear() removes everything but keeps the sequence", async (repo) => {
      await ok(
        repo,
        [],
        [
          putIdentifiable("shell", "s", {}),
          putIdentifiable("submodel", "sm", {}),
          insert("sm", "", "a", {}),
          putIdentifiable("concept-description", "cd", {}),
        ],
      );
      const seq = await repo.currentSeq();
      await repo.clear();
      assert.equal(await repo.currentSeq(), seq);
      for (const kind of ["shell", "submodel", "concept-description"] as const) {
        assert.equal(await repo.countIdentifiables(kind), 0);
        assert.deepEqual((await repo.listIdentifiables(kind, { limit: 5 })).items, []);
      }
      assert.equal(await repo.kindOf("s"), undefined);
      assert.deepEqual(await repo.getElements("sm", ["a"]), [undefined]);
      assert.deepEqual(await repo.getSubtree("sm", ""), []);
      const next = await ok(repo, [], [putIdentifiable("shell", "s", {})]);
      assert.equal(next.seq, seq + 1);
    });

    test("values round-trip byte-exactly", async (repo) => {
      const odd = JSON.stringify({
        text: "äöü ß € 日本語 🙂 .[]{}% \\ \" ' \t\n \u2028 ~!@#$^&*()",
        numbers: [1e21, 0.1, -0, 12345678901234567890],
        empty: [],
        obj: {},
      });
      const big = JSON.stringify({
        blob: "x".repeat(512 * 1024),
        list: Array.from({ length: 20_000 }, (_, i) => ({ i, s: `v${i}€` })),
      });
      assert.ok(big.length > 1_000_000);
      await ok(
        repo,
        [],
        [
          { op: "put-identifiable", kind: "submodel", id: "sm", json: odd },
          { op: "put-identifiable", kind: "shell", id: "big", json: big },
          insert("sm", "", "odd", odd),
          insert("sm", "", "big", big),
          { op: "put-element", submodelId: "sm", path: "raw", json: "not json at all: [] {} \u0001" },
        ],
      );
      assert.equal((await repo.getIdentifiable("submodel", "sm"))?.json, odd);
      assert.equal((await repo.getIdentifiable("shell", "big"))?.json, big);
      const [a, b, raw] = await repo.getElements("sm", ["odd", "big", "raw"]);
      assert.equal(a?.json, odd);
      assert.equal(b?.json, big);
      assert.equal(raw?.json, "not json at all: [] {} \u0001");
      assert.deepEqual(
        (await repo.getSubtree("sm", "")).map((r) => r.json),
        [odd, big],
      );
    });

    test("ids may contain any characters", async (repo) => {
      const ids = ["https://x/y?a=b#c", "urn:äö:日本:🙂", `long:${"é/".repeat(1024)}`, "{tp}:*?[]", "a b\tc", ""];
      assert.ok(ids[2].length >= 2048);
      for (const id of ids) {
        await ok(repo, [{ on: "id-free", id }], [putIdentifiable("submodel", id, { id }), insert(id, "", "p", { id })]);
      }
      for (const id of ids) {
        assert.equal((await repo.getIdentifiable("submodel", id))?.json, JSON.stringify({ id }));
        assert.equal(await repo.kindOf(id), "submodel");
        assert.equal((await repo.getElements(id, ["p"]))[0]?.json, JSON.stringify({ id }));
        assert.deepEqual(paths(await repo.getSubtree(id, "")), ["p"]);
      }
      assert.deepEqual(
        (await repo.listIdentifiables("submodel", { limit: 100 })).items.map((i) => i.id),
        ids,
      );
      await ok(repo, [], [{ op: "delete-identifiable", kind: "submodel", id: ids[0] }]);
      assert.deepEqual(await repo.getElements(ids[0], ["p"]), [undefined]);
      assert.equal((await repo.getElements(ids[1], ["p"]))[0]?.path, "p");
    });

    test("one commit can hold thousands of ops", async (repo) => {
      const ops: CommitOp[] = [putIdentifiable("submodel", "sm", {})];
      for (let i = 0; i < 5000; i++) ops.push(insert("sm", "", `p${i}`, { i }));
      const preconditions: CommitPrecondition[] = Array.from({ length: 2000 }, (_, i) => ({
        on: "element",
        submodelId: "sm",
        path: `p${i}`,
        revision: null,
      }));
      const result = await ok(repo, preconditions, ops);
      const all = await repo.getSubtree("sm", "");
      assert.equal(all.length, 5000);
      assert.equal(all[4999].path, "p4999");
      assert.ok(all.every((r) => r.revision === result.seq));
    });

    test("operation handles: compare-and-set on the version, then read back", async (repo) => {
      const id = "handle-1/ä?*{x}";
      assert.equal(await repo.getOperationHandle(id), undefined);
      assert.equal(
        await repo.putOperationHandle(id, '{"state":"Initiated"}', { ttlMs: 60_000, expectedVersion: null }),
        1,
      );
      // Creating again, or writing with a stale version, changes nothing.
      assert.equal(
        await repo.putOperationHandle(id, '{"state":"Other"}', { ttlMs: 60_000, expectedVersion: null }),
        undefined,
      );
      assert.equal(
        await repo.putOperationHandle(id, '{"state":"Other"}', { ttlMs: 60_000, expectedVersion: 7 }),
        undefined,
      );
      assert.deepEqual(await repo.getOperationHandle(id), { json: '{"state":"Initiated"}', version: 1 });
      assert.equal(
        await repo.putOperationHandle(id, '{"state":"Running","n":[]}', { ttlMs: 60_000, expectedVersion: 1 }),
        2,
      );
      assert.deepEqual(await repo.getOperationHandle(id), { json: '{"state":"Running","n":[]}', version: 2 });
      // Writing a handle whose version is unknown (deleted, expired) is refused, never a re-create.
      assert.equal(await repo.putOperationHandle("missing", "{}", { ttlMs: 60_000, expectedVersion: 1 }), undefined);
      assert.equal(await repo.getOperationHandle("missing"), undefined);
      // Handles are not model state: no sequence number is used.
      assert.equal(await repo.currentSeq(), 0);
    });

    test("operation handles expire after their TTL, counted from the last write", async (repo) => {
      await repo.putOperationHandle("short", "{}", { ttlMs: 150, expectedVersion: null });
      await repo.putOperationHandle("long", "{}", { ttlMs: 60_000, expectedVersion: null });
      await sleep(90);
      assert.equal(await repo.putOperationHandle("short", '{"again":true}', { ttlMs: 150, expectedVersion: 1 }), 2);
      await sleep(90);
      assert.equal((await repo.getOperationHandle("short"))?.version, 2, "the second write restarted the TTL");
      await sleep(150);
      assert.equal(await repo.getOperationHandle("short"), undefined);
      assert.equal((await repo.getOperationHandle("long"))?.version, 1);
      // An expired handle is gone: it can be created anew.
      assert.equal(await repo.putOperationHandle("short", "{}", { ttlMs: 60_000, expectedVersion: null }), 1);
    });

    test("deleteOperationHandles removes every handle and nothing else", async (repo) => {
      await ok(repo, [], [putIdentifiable("submodel", "sm", {}), insert("sm", "", "p", {})]);
      for (let i = 0; i < 30; i++)
        await repo.putOperationHandle(`h${i}`, "{}", { ttlMs: 60_000, expectedVersion: null });
      await repo.renewOperationRunner("runner", 60_000);
      assert.equal(await repo.deleteOperationHandles(), 30);
      assert.equal(await repo.getOperationHandle("h0"), undefined);
      assert.equal(await repo.getOperationHandle("h29"), undefined);
      assert.equal(await repo.deleteOperationHandles(), 0);
      assert.equal((await repo.getIdentifiable("submodel", "sm"))?.id, "sm");
      assert.equal((await repo.getElements("sm", ["p"]))[0]?.path, "p");
      assert.equal(await repo.isOperationRunnerAlive("runner"), true);
    });

    test("operation runner leases live until their TTL passes without renewal", async (repo) => {
      assert.equal(await repo.isOperationRunnerAlive("r1"), false);
      // Times with room for a loaded machine: a 100 ms timer can fire 50 ms late under load.
      await repo.renewOperationRunner("r1", 1_000);
      await repo.renewOperationRunner("r2", 60_000);
      assert.equal(await repo.isOperationRunnerAlive("r1"), true);
      await sleep(600);
      await repo.renewOperationRunner("r1", 1_000);
      await sleep(600);
      assert.equal(await repo.isOperationRunnerAlive("r1"), true, "renewal extended the lease");
      await sleep(1_100);
      assert.equal(await repo.isOperationRunnerAlive("r1"), false);
      assert.equal(await repo.isOperationRunnerAlive("r2"), true);
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- helpers

const draft: ChangeEventDraft = { kind: "submodel.updated", id: "x", time: "2026-01-01T00:00:00.000Z" };

function commit(preconditions: CommitPrecondition[], ops: CommitOp[]): Commit {
  return { preconditions, ops, event: draft };
}

async function ok(repo: Repository, preconditions: CommitPrecondition[], ops: CommitOp[]) {
  const result = await repo.commit(commit(preconditions, ops));
  assert.ok(result.ok, `commit failed at precondition ${result.ok ? "" : result.failed}`);
  return result;
}

function putIdentifiable(kind: IdentifiableKind, id: string, value: unknown): CommitOp {
  return { op: "put-identifiable", kind, id, json: JSON.stringify(value) };
}

/** Insert `path` below `parentPath`; the segment is whatever follows the parent (tests use plain names). */
function insert(submodelId: string, parentPath: string, path: string, value: unknown): CommitOp {
  const segment = parentPath === "" ? path : path.slice(parentPath.length + 1);
  return {
    op: "put-element",
    submodelId,
    path,
    json: typeof value === "string" ? value : JSON.stringify(value),
    insert: { parentPath, segment },
  };
}

function item(submodelId: string, listPath: string, index: number, value: unknown): CommitOp {
  return {
    op: "put-element",
    submodelId,
    path: `${listPath}[${index}]`,
    json: JSON.stringify(value),
    insert: { parentPath: listPath, segment: `[${index}]`, index },
  };
}

function paths(records: StoredElement[]): string[] {
  return records.map((r) => r.path);
}

async function childPaths(repo: Repository, submodelId: string, parentPath: string): Promise<string[]> {
  const result: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await repo.listChildren(submodelId, parentPath, { cursor, limit: 2 });
    result.push(...paths(page.items));
    cursor = page.cursor;
  } while (cursor !== undefined);
  return result;
}
