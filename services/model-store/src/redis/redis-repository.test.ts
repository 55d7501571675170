import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type ChangeEventDraft,
  type CommitOp,
  type Repository,
  RepositoryOutcomeUnknownError,
  RepositoryUnavailableError,
} from "@twinport/shared";
import { Redis } from "ioredis";
import { freePort, type RunningServer, startRedis } from "../../../../tests/test-support/servers.ts";
import { LARGE_COMMIT_BYTES } from "./commit-queue.ts";
import { createRedisRepository } from "./redis-repository.ts";

const draft: ChangeEventDraft = { kind: "element.updated", id: "sm", time: "2026-01-01T00:00:00.000Z" };
let prefixes = 0;
const nextPrefix = () => `unit-${++prefixes}`;

function insert(submodelId: string, parentPath: string, path: string, json = "{}"): CommitOp {
  return {
    op: "put-element",
    submodelId,
    path,
    json,
    insert: { parentPath, segment: path.slice(parentPath ? parentPath.length + 1 : 0) },
  };
}

async function commitOk(repo: Repository, ops: CommitOp[]) {
  const result = await repo.commit({ preconditions: [], ops, event: draft });
  assert.ok(result.ok);
  return result;
}

describe("Redis repository", () => {
  let server: RunningServer;
  let admin: Redis;
  before(async () => {
    server = await startRedis();
    admin = new Redis(server.url);
  });
  after(async () => {
    admin.disconnect();
    await server.stop();
  });

  it("keeps every key under one hash tag, with ids base64url-encoded in key names", async () => {
    const repo = await createRedisRepository({ url: server.url, keyPrefix: "layout" });
    try {
      const id = "https://x/y?a=b#c {tp} 日本";
      await commitOk(repo, [
        { op: "put-identifiable", kind: "submodel", id, json: "{}" },
        insert(id, "", "a"),
        insert(id, "a", "a.b"),
      ]);
      await commitOk(repo, [{ op: "put-identifiable", kind: "shell", id: "s", json: "{}" }]);
      const keys = await admin.keys("*");
      assert.ok(keys.length >= 8);
      assert.ok(
        keys.every((k) => k.startsWith("{layout}:")),
        keys.join(", "),
      );
      const encoded = Buffer.from(id).toString("base64url");
      assert.ok(keys.includes(`{layout}:sm:${encoded}:el`));
      assert.ok(keys.every((k) => !k.includes("https://")));
      await repo.clear();
      // The filter index version stays (an empty index is complete for an empty store, ADR 0035).
      assert.deepEqual((await admin.keys("{layout}:*")).sort(), [
        "{layout}:incarnation",
        "{layout}:index-version",
        "{layout}:outbox",
        "{layout}:seq",
      ]);
    } finally {
      await repo.close();
    }
  });

  it("appends each commit's event to the outbox stream without decoding it", async () => {
    const repo = await createRedisRepository({ url: server.url, keyPrefix: nextPrefix() });
    try {
      const event: ChangeEventDraft = {
        kind: "element.value-changed",
        id: "sm",
        idShortPath: "a",
        payload: { empty: [], obj: {}, big: "12345678901234567890", n: 0.1, text: "€ \u2028" },
        time: "2026-01-01T00:00:00.000Z",
      };
      const first = await repo.commit({ preconditions: [], ops: [insert("sm", "", "a")], event });
      const failed = await repo.commit({
        preconditions: [{ on: "identifiable", kind: "shell", id: "x", revision: 5 }],
        ops: [],
        event,
      });
      const second = await repo.commit({ preconditions: [], ops: [], event: draft });
      assert.ok(first.ok && !failed.ok && second.ok);
      const entries = await admin.xrange(repo.outboxKey, "-", "+");
      assert.deepEqual(entries, [
        [`${first.seq}-0`, ["seq", String(first.seq), "event", JSON.stringify(event)]],
        [`${second.seq}-0`, ["seq", String(second.seq), "event", JSON.stringify(draft)]],
      ]);
      // The seq key moved with the commits (one INCR per commit), not past them.
      assert.equal(await admin.get(repo.layout.sequence), String(second.seq));
    } finally {
      await repo.close();
    }
  });

  it("reads an outbox entry's seq from its id when the entry has no seq field", async () => {
    const repo = await createRedisRepository({ url: server.url, keyPrefix: nextPrefix() });
    try {
      await admin.xadd(repo.outboxKey, "1-0", "event", JSON.stringify(draft));
      await admin.set(repo.layout.sequence, "1");
      const second = await repo.commit({ preconditions: [], ops: [], event: draft });
      assert.ok(second.ok);
      assert.equal(second.seq, 2);
      assert.deepEqual(
        (await repo.readEvents!(0, 10)).map((e) => [e.seq, e.revision, e.kind]),
        [
          [1, 1, draft.kind],
          [2, 2, draft.kind],
        ],
      );
      assert.deepEqual(await repo.eventLogBounds!(), { oldest: 1, latest: 2 });
    } finally {
      await repo.close();
    }
  });

  it("stays atomic and gap-free under concurrent writers on separate connections", async () => {
    const prefix = nextPrefix();
    const a = await createRedisRepository({ url: server.url, keyPrefix: prefix });
    const b = await createRedisRepository({ url: server.url, keyPrefix: prefix });
    try {
      const created = await commitOk(a, [insert("sm", "", "counter", "0")]);
      // Compare-and-set increments from both connections: every success saw the latest revision.
      const worker = async (repo: Repository, rounds: number) => {
        let wins = 0;
        while (wins < rounds) {
          const [record] = await repo.getElements("sm", ["counter"]);
          const result = await repo.commit({
            preconditions: [{ on: "element", submodelId: "sm", path: "counter", revision: record!.revision }],
            ops: [{ op: "put-element", submodelId: "sm", path: "counter", json: String(Number(record!.json) + 1) }],
            event: draft,
          });
          if (result.ok) wins++;
        }
      };
      await Promise.all([worker(a, 60), worker(b, 60), worker(a, 60), worker(b, 60)]);
      const [counter] = await a.getElements("sm", ["counter"]);
      assert.equal(counter?.json, "240");
      assert.equal(await b.currentSeq(), created.seq + 240);
      const seqs = (await admin.xrange(a.outboxKey, "-", "+")).map(([id]) => Number.parseInt(id, 10));
      assert.deepEqual(
        seqs,
        Array.from({ length: 241 }, (_, i) => created.seq + i),
      );
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("callers' batches share a script call, each batch's placeholder revisions naming its own commits", async () => {
    const repo = await createRedisRepository({ url: server.url, keyPrefix: nextPrefix() });
    try {
      await commitOk(repo, [
        { op: "put-identifiable", kind: "submodel", id: "sm", json: "{}" },
        insert("sm", "", "x"),
        insert("sm", "", "p"),
      ]);
      const [p] = await repo.getElements("sm", ["p"]);
      const write = (path: string, revision: number, json: string) => ({
        preconditions: [{ on: "element" as const, submodelId: "sm", path, revision }],
        ops: [{ op: "put-element" as const, submodelId: "sm", path, json }],
        event: draft,
      });
      // Handed in within one turn: one script call of three commits. The second caller's second
      // commit is planned on top of its first (batchRevision(0), i.e. -1): commit 2 of the call,
      // not commit 1 (the other caller's write to x).
      const [[other], batch] = await Promise.all([
        repo.commitBatch([write("x", (await repo.getElements("sm", ["x"]))[0]!.revision, '{"v":"x"}')]),
        repo.commitBatch([write("p", p!.revision, '{"v":1}'), write("p", -1, '{"v":2}')]),
      ]);
      assert.ok(other!.ok);
      assert.deepEqual(
        batch.map((r) => r.ok),
        [true, true],
        "the write planned on top of its own batch's first commit holds",
      );
      const [after] = await repo.getElements("sm", ["p"]);
      assert.equal(after!.json, '{"v":2}');
      assert.equal(after!.revision, batch[1]!.ok ? batch[1]!.seq : -1);
      // And one planned on a commit that failed does not pass on the strength of another caller's.
      const [now] = await repo.getElements("sm", ["p"]);
      const [[touch], stale] = await Promise.all([
        repo.commitBatch([
          {
            preconditions: [],
            ops: [{ op: "touch-element" as const, submodelId: "sm", path: "p" }],
            event: draft,
          },
        ]),
        repo.commitBatch([write("p", now!.revision, '{"v":3}'), write("p", -1, '{"v":4}')]),
      ]);
      assert.ok(touch!.ok, "the touch went first and changed p's revision");
      assert.deepEqual(
        stale.map((r) => r.ok),
        [false, false],
        "the batch's first write fails its compare-and-set, and the one planned on it fails with it",
      );
      assert.equal((await repo.getElements("sm", ["p"]))[0]!.json, '{"v":2}');
    } finally {
      await repo.close();
    }
  });

  it("reloads its scripts after SCRIPT FLUSH", async () => {
    const repo = await createRedisRepository({ url: server.url, keyPrefix: nextPrefix() });
    try {
      await commitOk(repo, [insert("sm", "", "a"), insert("sm", "a", "a.b")]);
      assert.equal((await repo.getSubtree("sm", "a")).length, 2);
      await admin.script("FLUSH");
      await commitOk(repo, [insert("sm", "a", "a.c")]);
      assert.equal((await repo.getSubtree("sm", "a")).length, 3);
    } finally {
      await repo.close();
    }
  });

  it("one element costs the same Redis commands on a submodel of 100,000 elements as on one of 10", async () => {
    const repo = await createRedisRepository({ url: server.url, keyPrefix: nextPrefix(), commandTimeoutMs: 20_000 });
    try {
      const load = (id: string, count: number): CommitOp[] => {
        const ops: CommitOp[] = [{ op: "put-identifiable", kind: "submodel", id, json: "{}" }];
        for (let c = 0; c < 10; c++) ops.push(insert(id, "", `c${c}`));
        for (let i = 0; i < count - 10; i++)
          ops.push(insert(id, `c${i % 10}`, `c${i % 10}.p${i}`, `{"idShort":"p${i}","value":"${i}"}`));
        return ops;
      };
      await commitOk(repo, load("small", 10 + 10));
      await commitOk(repo, load("big", 100_000)); // ONE commit
      assert.equal((await repo.getSubtree("big", "")).length, 100_000);

      const path = (id: string) => (id === "big" ? "c3.p99983" : "c3.p3");
      const getAndPut = async (id: string) => {
        const [record] = await repo.getElements(id, [path(id)]);
        const result = await repo.commit({
          preconditions: [{ on: "element", submodelId: id, path: path(id), revision: record!.revision }],
          ops: [
            { op: "put-element", submodelId: id, path: path(id), json: record!.json },
            { op: "touch-element", submodelId: id, path: "c3" },
            { op: "touch-identifiable", kind: "submodel", id },
          ],
          event: draft,
        });
        assert.ok(result.ok);
      };
      // Cost 1: Redis commands executed (including those inside scripts) per get+put: identical.
      const commands = async () => {
        const stats = await admin.info("commandstats");
        return [...stats.matchAll(/calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
      };
      const counted = async (id: string) => {
        const before = await commands();
        await getAndPut(id);
        return (await commands()) - before - 1; // minus the INFO itself
      };
      await getAndPut("small"); // scripts loaded
      assert.equal(await counted("big"), await counted("small"));

      // Time is measured where noise cannot fail a build: bench/value-access-scaling.ts (GET and
      // PATCH $value on 100,000 vs 10 elements, ratios within one run). A timed assertion here
      // failed once on a busy machine (113 vs 282 ms) while the command counts above were equal.
      await commitOk(repo, [{ op: "delete-identifiable", kind: "submodel", id: "big" }]);
      assert.equal(await admin.exists(repo.layout.submodel("big").el), 0);
    } finally {
      await repo.close();
    }
  });

  it("deleting and appending one list item costs the same Redis commands on 10 as on 10,000 items", async () => {
    const repo = await createRedisRepository({ url: server.url, keyPrefix: nextPrefix() });
    try {
      const item = (id: string, i: number): Extract<CommitOp, { op: "put-element" }> => ({
        op: "put-element",
        submodelId: id,
        path: `L[${i}]`,
        json: `{"i":${i}}`,
        insert: { parentPath: "L", segment: `[${i}]`, index: i },
      });
      for (const [id, size] of [
        ["small", 10],
        ["big", 10_000],
      ] as const) {
        await commitOk(repo, [
          { op: "put-identifiable", kind: "submodel", id, json: "{}" },
          insert(id, "", "A"),
          insert(id, "", "L"),
          insert(id, "", "Z"),
        ]);
        for (let from = 0; from < size; from += 1000)
          await commitOk(
            repo,
            Array.from({ length: Math.min(1000, size - from) }, (_, k) => item(id, from + k)),
          );
      }
      // What the engine does for DELETE L[0] and POST L: read, commit with the read's guard.
      const deleteFirst = async (id: string) => {
        const [record] = await repo.getElements(id, ["L[0]"]);
        const result = await repo.commit({
          preconditions: [
            { on: "element", submodelId: id, path: "L[0]", revision: record!.revision, orderKey: record!.orderKey },
          ],
          ops: [
            { op: "delete-element", submodelId: id, path: "L[0]", orderKey: record!.orderKey },
            { op: "touch-element", submodelId: id, path: "L" },
            { op: "touch-identifiable", kind: "submodel", id },
          ],
          event: draft,
        });
        assert.ok(result.ok);
      };
      const append = async (id: string) => {
        const [list] = await repo.getElements(id, ["L"]);
        const length = await repo.countChildren(id, "L");
        const result = await repo.commit({
          preconditions: [
            { on: "element", submodelId: id, path: "L", revision: list!.revision },
            { on: "element", submodelId: id, path: `L[${length}]`, revision: null },
          ],
          ops: [
            { ...item(id, length), json: '"appended"' },
            { op: "touch-element", submodelId: id, path: "L" },
            { op: "touch-identifiable", kind: "submodel", id },
          ],
          event: draft,
        });
        assert.ok(result.ok);
      };
      const commands = async () => {
        const stats = await admin.info("commandstats");
        return [...stats.matchAll(/calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
      };
      const counted = async (run: () => Promise<void>) => {
        const before = await commands();
        await run();
        return (await commands()) - before - 1; // minus the INFO itself
      };
      await deleteFirst("small"); // scripts loaded
      await append("small");
      assert.equal(await counted(() => deleteFirst("big")), await counted(() => deleteFirst("small")));
      assert.equal(await counted(() => append("big")), await counted(() => append("small")));
      // And the big list is right: one item deleted from the front, one appended.
      const big = await repo.getSubtree("big", "L");
      assert.equal(big.length, 1 + 10_000);
      assert.deepEqual([big[1]!.path, big[1]!.json], ["L[0]", '{"i":1}']);
      assert.deepEqual([big.at(-1)!.path, big.at(-1)!.json], ["L[9999]", '"appended"']);
      assert.deepEqual((await repo.getElements("big", ["L[9998]"]))[0]?.json, '{"i":9999}');
    } finally {
      await repo.close();
    }
  });

  it("reads and writes lists stored before ADR 0020 (items under their index)", async () => {
    const repo = await createRedisRepository({ url: server.url, keyPrefix: nextPrefix() });
    try {
      await commitOk(repo, [
        { op: "put-identifiable", kind: "submodel", id: "old", json: "{}" },
        insert("old", "", "L"),
      ]);
      const keys = repo.layout.submodel("old");
      // The old layout: path L[i], orderKey = the index, children with counter keys.
      for (let i = 0; i < 3; i++) {
        const orderKey = i.toString(16).padStart(16, "0");
        await admin.hset(keys.el, `L[${i}]`, `7\x01${orderKey}\x01L\x01{"i":${i}}`);
        await admin.zadd(keys.order, 0, `L\x01${orderKey}\x01L[${i}]`);
        const childKey = (100 + i).toString(16).padStart(16, "0");
        await admin.hset(keys.el, `L[${i}].x`, `7\x01${childKey}\x01L[${i}]\x01{"x":${i}}`);
        await admin.zadd(keys.order, 0, `L[${i}]\x01${childKey}\x01L[${i}].x`);
      }
      assert.deepEqual(
        (await repo.getSubtree("old", "L")).map((r) => r.path),
        ["L", "L[0]", "L[0].x", "L[1]", "L[1].x", "L[2]", "L[2].x"],
      );
      const doomed = await repo.getSubtree("old", "L[0]");
      await commitOk(
        repo,
        doomed
          .reverse()
          .map((r) => ({ op: "delete-element" as const, submodelId: "old", path: r.path, orderKey: r.orderKey })),
      );
      await commitOk(repo, [
        {
          op: "put-element",
          submodelId: "old",
          path: "L[2]",
          json: '{"i":"new"}',
          insert: { parentPath: "L", segment: "[2]", index: 2 },
        },
        insert("old", "L[2]", "L[2].x", '{"x":"new"}'),
      ]);
      assert.deepEqual(
        (await repo.getSubtree("old", "L")).map((r) => [r.path, r.json]),
        [
          ["L", "{}"],
          ["L[0]", '{"i":1}'],
          ["L[0].x", '{"x":1}'],
          ["L[1]", '{"i":2}'],
          ["L[1].x", '{"x":2}'],
          ["L[2]", '{"i":"new"}'],
          ["L[2].x", '{"x":"new"}'],
        ],
      );
      assert.deepEqual((await repo.getElements("old", ["L[1].x"]))[0]?.json, '{"x":2}');
    } finally {
      await repo.close();
    }
  });

  it("fails fast with RepositoryUnavailableError while a command runs too long", async () => {
    const repo = await createRedisRepository({ url: server.url, keyPrefix: nextPrefix(), commandTimeoutMs: 200 });
    const blocker = new Redis(server.url);
    try {
      await commitOk(repo, [insert("sm", "", "a")]);
      // Keep the server busy for ~800 ms with a script on another connection.
      const busy = blocker.eval(
        "local s = redis.call('TIME') repeat local n = redis.call('TIME') until (n[1] - s[1]) * 1000000 + (n[2] - s[2]) > 800000 return 1",
        0,
      );
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      await assert.rejects(repo.getElements("sm", ["a"]), RepositoryUnavailableError);
      assert.ok(Date.now() - started < 700, "answered before the server was free again");
      await busy;
      assert.equal((await repo.getElements("sm", ["a"]))[0]?.path, "a");
    } finally {
      blocker.disconnect();
      await repo.close();
    }
  });

  it("reports each commit script call (for /metrics): the commits it carried, its time, and whether it failed", async () => {
    const calls: { commits: number; seconds: number; failed: boolean }[] = [];
    const repo = await createRedisRepository({
      url: server.url,
      keyPrefix: nextPrefix(),
      commandTimeoutMs: 200,
      onCommitCall: (commits, seconds, failed) => calls.push({ commits, seconds, failed }),
    });
    const blocker = new Redis(server.url);
    try {
      // Handed in during one turn: one call (group commit) carrying all three.
      await Promise.all(["a", "b", "c"].map((path) => commitOk(repo, [insert("sm", "", path)])));
      assert.equal(calls.length, 1);
      assert.equal(calls[0]!.commits, 3);
      assert.equal(calls[0]!.failed, false);
      assert.ok(calls[0]!.seconds > 0 && calls[0]!.seconds < 5, String(calls[0]!.seconds));
      // Reads are not commit calls.
      await repo.getElements("sm", ["a"]);
      assert.equal(calls.length, 1);
      // A call Redis does not answer in time: reported as failed, after the command timeout.
      const busy = blocker.eval(
        "local s = redis.call('TIME') repeat local n = redis.call('TIME') until (n[1] - s[1]) * 1000000 + (n[2] - s[2]) > 600000 return 1",
        0,
      );
      await new Promise((r) => setTimeout(r, 50));
      await assert.rejects(
        repo.commit({ preconditions: [], ops: [insert("sm", "", "late")], event: draft }),
        RepositoryOutcomeUnknownError,
      );
      await busy;
      assert.equal(calls.length, 2);
      assert.equal(calls[1]!.commits, 1);
      assert.equal(calls[1]!.failed, true);
      assert.ok(calls[1]!.seconds >= 0.19, String(calls[1]!.seconds));
    } finally {
      blocker.disconnect();
      await repo.close();
    }
  });

  it("a commit of one op but much text waits out a busy Redis on the long-timeout connection", async () => {
    // One identifiable of a few MiB is one op: it was sent on the fail-fast connection and timed
    // out while Redis applied it (a 504 for a committed write, a package left half written).
    const repo = await createRedisRepository({ url: server.url, keyPrefix: nextPrefix(), commandTimeoutMs: 200 });
    const blocker = new Redis(server.url);
    try {
      const json = JSON.stringify({ id: "big", text: "x".repeat(LARGE_COMMIT_BYTES) });
      // The long-timeout connection is opened by the first large commit (opening it while Redis is
      // busy fails fast, honestly "not sent"): open it now.
      await commitOk(repo, [{ op: "put-identifiable", kind: "concept-description", id: "first", json }]);
      const busy = blocker.eval(
        "local s = redis.call('TIME') repeat local n = redis.call('TIME') until (n[1] - s[1]) * 1000000 + (n[2] - s[2]) > 600000 return 1",
        0,
      );
      await new Promise((r) => setTimeout(r, 50));
      await commitOk(repo, [{ op: "put-identifiable", kind: "concept-description", id: "big", json }]);
      await busy;
      assert.equal((await repo.getIdentifiable("concept-description", "big"))?.json, json);
    } finally {
      blocker.disconnect();
      await repo.close();
    }
  });

  it("a commit sent but not answered in time throws RepositoryOutcomeUnknownError (it may well have been applied)", async () => {
    const repo = await createRedisRepository({ url: server.url, keyPrefix: nextPrefix(), commandTimeoutMs: 200 });
    const blocker = new Redis(server.url);
    try {
      const busy = blocker.eval(
        "local s = redis.call('TIME') repeat local n = redis.call('TIME') until (n[1] - s[1]) * 1000000 + (n[2] - s[2]) > 800000 return 1",
        0,
      );
      await new Promise((r) => setTimeout(r, 50));
      await assert.rejects(
        repo.commit({ preconditions: [], ops: [insert("sm", "", "late")], event: draft }),
        (error: Error) =>
          error instanceof RepositoryOutcomeUnknownError && error.name === "RepositoryOutcomeUnknownError",
      );
      await busy;
      // Redis ran the script once it was free: "unknown" was the honest answer, 503 would have lied.
      assert.equal((await repo.getElements("sm", ["late"]))[0]?.path, "late");
    } finally {
      blocker.disconnect();
      await repo.close();
    }
  });
});

describe("Redis repository during an outage", () => {
  it("throws RepositoryUnavailableError at once while Redis is down and recovers when it is back", async () => {
    const port = await freePort();
    // An outage, not lost data (see "a Redis that comes back empty"): Redis comes back with its AOF.
    let server = await startRedis({ port, appendOnly: true });
    const repo = await createRedisRepository({ url: server.url, keyPrefix: "outage" });
    try {
      await commitOk(repo, [insert("sm", "", "a")]);
      await killRedis(server);
      for (const call of [
        () => repo.getElements("sm", ["a"]),
        () => repo.commit({ preconditions: [], ops: [], event: draft }),
        () => repo.currentSeq(),
      ]) {
        const started = Date.now();
        await assert.rejects(
          call(),
          (error: Error) => error instanceof RepositoryUnavailableError && error.name === "RepositoryUnavailableError",
        );
        assert.ok(Date.now() - started < 1000, "failed fast");
      }
      server = await startRedis({ port, appendOnly: true, dir: server.dir });
      const until = Date.now() + 5000;
      for (;;) {
        try {
          await commitOk(repo, [insert("sm", "", "b")]);
          break;
        } catch (error) {
          assert.ok(error instanceof RepositoryUnavailableError);
          if (Date.now() > until) throw error;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      assert.equal((await repo.getElements("sm", ["b"]))[0]?.path, "b");
    } finally {
      await repo.close();
      await server.stop();
    }
  });

  it("a Redis that comes back empty: every commit is refused as unavailable, writes nothing, and is reported", async () => {
    const port = await freePort();
    let server = await startRedis({ port });
    let reported = 0;
    const repo = await createRedisRepository({
      url: server.url,
      keyPrefix: "wiped",
      onStoreLost: () => reported++,
    });
    try {
      await commitOk(repo, [insert("sm", "", "a")]);
      assert.equal(await repo.incarnationState(), "held");
      // Without persistence a restarted Redis is an empty one (as after a lost volume or FLUSHALL).
      await killRedis(server);
      server = await startRedis({ port });
      const until = Date.now() + 5000;
      let refused: unknown;
      while (refused === undefined) {
        refused = await repo.commit({ preconditions: [], ops: [insert("sm", "", "b")], event: draft }).then(
          (result) => assert.fail(`a commit into the empty Redis went through: ${JSON.stringify(result)}`),
          (error: unknown) => (/STORELOST/.test(String(error)) ? error : Date.now() > until ? error : undefined),
        );
        if (refused === undefined) await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(refused instanceof RepositoryUnavailableError, String(refused));
      assert.match((refused as Error).message, /STORELOST/);
      assert.equal(reported, 1);
      assert.equal(await repo.incarnationState(), "lost");
      // Nothing written: not the sequence (its revisions would repeat the lost ones), not the element.
      assert.deepEqual(await repo.getElements("sm", ["b"]), [undefined]);
      assert.equal(await repo.currentSeq(), 0);
    } finally {
      await repo.close();
      await server.stop();
    }
  });

  it("starts while Redis is down, answers unavailable, and connects once Redis is up", async () => {
    const port = await freePort();
    const repo = await createRedisRepository({
      url: `redis://127.0.0.1:${port}`,
      keyPrefix: "late",
      commandTimeoutMs: 500,
    });
    let server: RunningServer | undefined;
    try {
      await assert.rejects(repo.currentSeq(), RepositoryUnavailableError);
      server = await startRedis({ port });
      const until = Date.now() + 5000;
      let seq: number | undefined;
      while (seq === undefined) {
        seq = await repo.currentSeq().catch((error) => {
          assert.ok(error instanceof RepositoryUnavailableError);
          if (Date.now() > until) throw error;
          return new Promise<undefined>((r) => setTimeout(() => r(undefined), 50));
        });
      }
      assert.equal(seq, 0);
    } finally {
      await repo.close();
      await server?.stop();
    }
  });

  it("with waitForRedis, opening waits until Redis is up, telling each reason once, and then answers", async () => {
    const port = await freePort();
    const problems: string[] = [];
    let opened = false;
    const opening = createRedisRepository({
      url: `redis://127.0.0.1:${port}`,
      keyPrefix: "wait",
      waitForRedis: (problem) => problems.push(problem),
    }).then((repo) => {
      opened = true;
      return repo;
    });
    let server: RunningServer | undefined;
    try {
      // ioredis retries within a second (redis-client.ts): several failed attempts, one report.
      await new Promise((r) => setTimeout(r, 2500));
      assert.equal(opened, false);
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assert.match(problems[0]!, /ECONNREFUSED/);
      server = await startRedis({ port });
      const repo = await opening;
      try {
        assert.equal(await repo.currentSeq(), 0);
        await repo.termIndexReady();
      } finally {
        await repo.close();
      }
    } finally {
      if (!opened) void opening.then((repo) => repo.close());
      await server?.stop();
    }
  });
});

/** Kill -9, and wait until it is gone; its directory (and AOF) stays for a restart. */
async function killRedis(server: RunningServer): Promise<void> {
  process.kill(server.pid, "SIGKILL");
  for (;;) {
    try {
      process.kill(server.pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}
