import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type ChangeEventDraft, type CommitOp, indexTerm, type Repository } from "@twinport/shared";
import { Redis } from "ioredis";
import { freePort, type RunningServer, startRedis } from "../../../../tests/test-support/servers.ts";
import { IDENTIFIABLE_KINDS, redisLayout } from "./redis-layout.ts";
import { createRedisRepository, type TermIndexBuildReport } from "./redis-repository.ts";
import { ensureTermIndex, TERM_INDEX_VERSION } from "./term-index-build.ts";

const draft: ChangeEventDraft = { kind: "shell.created", id: "x", time: "2026-01-01T00:00:00.000Z" };
let prefixes = 0;

async function put(repo: Repository, ops: CommitOp[]) {
  assert.ok((await repo.commit({ preconditions: [], ops, event: draft })).ok);
}

async function ids(repo: Repository, kind: "shell" | "submodel" | "concept-description", term: string) {
  return (await repo.listIdentifiablesByTerms(kind, [term], { limit: 100 })).items.map((i) => i.id);
}

describe("Redis filter index build (a store from before the index)", () => {
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

  /** A store with data and no index: written, then its index keys and version removed. */
  async function storeWithoutIndex(prefix: string, shells: number) {
    const repo = await createRedisRepository({ url: server.url, keyPrefix: prefix });
    const ops: CommitOp[] = [];
    for (let i = 0; i < shells; i++)
      ops.push({
        op: "put-identifiable",
        kind: "shell",
        id: `s${i}`,
        json: JSON.stringify({ id: `s${i}`, idShort: `S${i % 3}` }),
      });
    ops.push({
      op: "put-identifiable",
      kind: "submodel",
      id: "sm",
      json: JSON.stringify({ id: "sm", idShort: "Nameplate" }),
    });
    ops.push({
      op: "put-identifiable",
      kind: "concept-description",
      id: "cd",
      json: JSON.stringify({ id: "cd", idShort: "Cd" }),
    });
    await put(repo, ops);
    await repo.close();
    const layout = redisLayout(prefix);
    for (const kind of IDENTIFIABLE_KINDS) {
      const { terms, index } = layout.termIndex(kind);
      await admin.del(terms, index);
    }
    await admin.del(layout.termIndexVersion);
    return layout;
  }

  it("opening a store without an index builds it, and marks it complete", async () => {
    const prefix = `build-${++prefixes}`;
    const layout = await storeWithoutIndex(prefix, 10);
    assert.equal(await admin.exists(layout.termIndex("shell").index), 0);
    const repo = await createRedisRepository({ url: server.url, keyPrefix: prefix });
    try {
      await repo.termIndexReady();
      assert.equal(await admin.get(layout.termIndexVersion), TERM_INDEX_VERSION);
      assert.deepEqual(await ids(repo, "shell", indexTerm("idShort", "S1")), ["s1", "s4", "s7"]);
      assert.deepEqual(await ids(repo, "submodel", indexTerm("idShort", "Nameplate")), ["sm"]);
      assert.deepEqual(await ids(repo, "concept-description", indexTerm("idShort", "Cd")), ["cd"]);
      // And commits keep it from there on.
      await put(repo, [
        { op: "put-identifiable", kind: "shell", id: "s1", json: JSON.stringify({ id: "s1", idShort: "S2" }) },
      ]);
      assert.deepEqual(await ids(repo, "shell", indexTerm("idShort", "S1")), ["s4", "s7"]);
    } finally {
      await repo.close();
    }
  });

  it("a store opened while Redis is down builds its index once Redis is back", { timeout: 20_000 }, async () => {
    const port = await freePort();
    const repo = await createRedisRepository({
      url: `redis://127.0.0.1:${port}`,
      keyPrefix: "late",
      commandTimeoutMs: 300,
    });
    let late: RunningServer | undefined;
    try {
      let ready = false;
      void repo.termIndexReady().then(() => {
        ready = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(ready, false);
      late = await startRedis({ port });
      await repo.termIndexReady();
      const layout = redisLayout("late");
      const lateAdmin = new Redis(late.url);
      try {
        assert.equal(await lateAdmin.get(layout.termIndexVersion), TERM_INDEX_VERSION);
      } finally {
        lateAdmin.disconnect();
      }
      await put(repo, [
        { op: "put-identifiable", kind: "shell", id: "s", json: JSON.stringify({ id: "s", idShort: "S" }) },
      ]);
      assert.deepEqual(await ids(repo, "shell", indexTerm("idShort", "S")), ["s"]);
    } finally {
      await repo.close();
      await late?.stop();
    }
  });

  it("a build that fails is reported and retried, and the finished build is reported", {
    timeout: 20_000,
  }, async () => {
    const prefix = `build-${++prefixes}`;
    const layout = await storeWithoutIndex(prefix, 4);
    // The shell index key holds a string: the build's script fails with WRONGTYPE until it is gone.
    await admin.set(layout.termIndex("shell").index, "not a sorted set");
    const reports: TermIndexBuildReport[] = [];
    const repo = await createRedisRepository({
      url: server.url,
      keyPrefix: prefix,
      onTermIndexBuild: (report) => reports.push(report),
    });
    try {
      assert.equal(reports.length, 1);
      const failed = reports[0]!;
      assert.equal(failed.state, "failed");
      assert.match(String((failed as { error: unknown }).error), /WRONGTYPE/);
      assert.ok((failed as { retryInMs: number }).retryInMs > 0);
      await admin.del(layout.termIndex("shell").index);
      await repo.termIndexReady();
      assert.deepEqual(reports.at(-1)?.state, "built");
      assert.equal((reports.at(-1) as { indexed: number }).indexed, 6);
      assert.deepEqual(await ids(repo, "shell", indexTerm("idShort", "S1")), ["s1"]);
    } finally {
      await repo.close();
    }
    // A store whose index is complete reports nothing.
    const quiet: TermIndexBuildReport[] = [];
    const again = await createRedisRepository({
      url: server.url,
      keyPrefix: prefix,
      onTermIndexBuild: (r) => quiet.push(r),
    });
    await again.close();
    assert.deepEqual(quiet, []);
  });

  it("builds in bounded batches, and a second build changes nothing", async () => {
    const prefix = `build-${++prefixes}`;
    const layout = await storeWithoutIndex(prefix, 7);
    const repo = await createRedisRepository({ url: server.url, keyPrefix: prefix });
    try {
      await admin.del(layout.termIndexVersion);
      assert.equal(await ensureTermIndex(admin, layout, 2), 9);
      const before = await admin.zrange(layout.termIndex("shell").index, "0", "-1");
      assert.equal(before.length, 7);
      await admin.del(layout.termIndexVersion);
      await ensureTermIndex(admin, layout, 3);
      assert.deepEqual(await admin.zrange(layout.termIndex("shell").index, "0", "-1"), before);
      // Complete: the next open builds nothing.
      assert.equal(await ensureTermIndex(admin, layout, 3), 0);
    } finally {
      await repo.close();
    }
  });
});
