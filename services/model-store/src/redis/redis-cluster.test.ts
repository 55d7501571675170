import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type ChangeEventDraft,
  type Commit,
  type CommitOp,
  type CommitResult,
  createInProcessEventBus,
  type Heartbeat,
  RepositoryOutcomeUnknownError,
  RepositoryUnavailableError,
} from "@twinport/shared";
import { Redis } from "ioredis";
import { type RunningRedisCluster, startRedisCluster } from "../../../../tests/test-support/redis-cluster.ts";
import { startOutboxKeeper } from "../outbox/outbox-keeper.ts";
import {
  applyRound,
  commitRound,
  deliverableSeq,
  encodeRound,
  prepareRound,
  recoverPending,
} from "./cluster-commit.ts";
import { createRedisRepository, type RedisRepository } from "./redis-repository.ts";

// The cluster commit (docs/adr/0040) on a real 3-node Redis Cluster: where the keys land, and what
// a committer that dies between the steps leaves behind (fault tests drive the steps one by one).
const draft = (id: string): ChangeEventDraft => ({ kind: "element.updated", id, time: "2026-01-01T00:00:00.000Z" });
const property = (value: string) =>
  JSON.stringify({ modelType: "Property", idShort: "P", valueType: "xs:string", value });

function createSubmodel(id: string): Commit {
  return {
    preconditions: [{ on: "id-free", id }],
    ops: [
      { op: "put-identifiable", kind: "submodel", id, json: JSON.stringify({ modelType: "Submodel", id }) },
      { op: "put-element", submodelId: id, path: "P", json: property("0"), insert: { parentPath: "", segment: "P" } },
    ],
    event: { ...draft(id), kind: "submodel.created" },
  };
}

function writeValue(id: string, revision: number, value: string): Commit {
  const ops: CommitOp[] = [
    { op: "put-element", submodelId: id, path: "P", json: property(value) },
    { op: "touch-identifiable", kind: "submodel", id },
  ];
  return { preconditions: [{ on: "element", submodelId: id, path: "P", revision }], ops, event: draft(id) };
}

async function valueOf(repo: RedisRepository, id: string) {
  const [record] = await repo.getElements(id, ["P"]);
  assert.ok(record, `P of ${id}`);
  return { value: (JSON.parse(record.json) as { value: string }).value, revision: record.revision };
}

/** Steps 1 and 2 of a round writing `value` (lock, check, stash; commit): a committer that stops before APPLY. */
async function committedNotApplied(
  repo: RedisRepository,
  id: string,
  revision: number,
  value: string,
  lockMs = 60_000,
) {
  const round = encodeRound(repo.layout, [writeValue(id, revision, value)], [0], () => "failed");
  const [seq] = await commitRound(
    repo.redis,
    repo.layout,
    round,
    await prepareRound(repo.redis, repo.layout, round, { lockMs, waitMs: 1000 }),
  );
  return { round, seq: seq! };
}

describe("Redis Cluster repository", () => {
  let cluster: RunningRedisCluster;
  let nodes: Redis[];
  let prefixes = 0;
  const open = () =>
    createRedisRepository({
      url: cluster.nodes[0]!,
      cluster: { nodes: cluster.nodes },
      keyPrefix: `cl-${++prefixes}`,
      commandTimeoutMs: 1000,
    });
  /** The index of the node whose slots include `key`'s (CLUSTER SLOTS), or -1 when it has no such key. */
  const ownerOf = async (key: string) => {
    const slot = Number(await nodes[0]!.cluster("KEYSLOT", key));
    const ranges = (await nodes[0]!.cluster("SLOTS")) as unknown as [number, number, [string, number]][];
    const [, , [, port]] = ranges.find(([from, to]) => from <= slot && slot <= to)!;
    return cluster.ports.indexOf(Number(port));
  };
  const nodeOf = async (key: string) => {
    const owner = await ownerOf(key);
    return (await nodes[owner]!.exists(key)) === 1 ? owner : -1;
  };

  before(async () => {
    cluster = await startRedisCluster({ fullCoverage: false });
    nodes = cluster.nodes.map((url) => new Redis(url));
  });
  after(async () => {
    for (const node of nodes) node.disconnect();
    await cluster.stop();
  });

  it("keeps each submodel's elements in a slot of their own, spread over the nodes; the rest in the catalog slot", async () => {
    const repo = await open();
    try {
      const ids = Array.from({ length: 30 }, (_, i) => `urn:example:submodel:${i}`);
      const results = await repo.commitBatch(ids.map(createSubmodel));
      assert.ok(results.every((r) => r.ok));
      const holders = new Set<number>();
      for (const id of ids) {
        const keys = repo.layout.submodel(id);
        const el = await nodeOf(keys.el);
        assert.notEqual(el, -1, `${keys.el} exists`);
        assert.equal(await nodeOf(keys.order), el, "order on the same node as el");
        assert.equal(await nodeOf(keys.ctr), el, "ctr on the same node as el");
        assert.match(keys.el, new RegExp(`^\\{cl-${prefixes}:sm:[A-Za-z0-9_-]+\\}:el$`));
        holders.add(el);
        const result: CommitResult = results[ids.indexOf(id)]!;
        const seq: number = result.ok ? result.seq : 0;
        assert.deepEqual(await valueOf(repo, id), { value: "0", revision: seq });
      }
      assert.equal(holders.size, 3, "30 submodels spread over all 3 nodes");
      // everything else: one slot, the catalog's
      const catalog = new Set<string>();
      for (const node of nodes)
        for (const key of await node.keys(`{cl-${prefixes}}*`)) catalog.add(String(await node.cluster("KEYSLOT", key)));
      assert.equal(catalog.size, 1, "catalog keys share one slot");
      // the filtered catalog reads still work, and the seqs are one gap-free sequence
      assert.equal(await repo.countIdentifiables("submodel"), 30);
      const events = await repo.readEvents!(0, 100);
      assert.deepEqual(
        events.map((e) => e.seq),
        Array.from({ length: 30 }, (_, i) => i + 1),
      );
    } finally {
      await repo.close();
    }
  });

  it("value writes to one submodel in one batch keep the order of the batch and one seq each", async () => {
    const repo = await open();
    try {
      const id = "urn:example:batch";
      const created = await repo.commit(createSubmodel(id));
      assert.ok(created.ok);
      // commit 2 names commit 1's revision (planned on top of it): same round, checked in two halves;
      // commit 3 checks a path the round rewrote: next round
      const results = await repo.commitBatch([
        writeValue(id, created.seq, "a"),
        writeValue(id, -1 - 0, "b"),
        writeValue(id, created.seq, "stale"),
      ]);
      assert.ok(results[0]!.ok && results[1]!.ok);
      assert.deepEqual(results[2], { ok: false, failed: 0 }, "a precondition on an overwritten revision fails");
      assert.deepEqual(await valueOf(repo, id), { value: "b", revision: (results[1] as { seq: number }).seq });
      assert.equal(await repo.currentSeq(), (results[1] as { seq: number }).seq, "the failed commit took no seq");
      // a write planned on top of one that fails fails too, in the same round
      const before = await repo.currentSeq();
      const chained = await repo.commitBatch([writeValue(id, created.seq, "x"), writeValue(id, -1 - 0, "y")]);
      assert.deepEqual(chained, [
        { ok: false, failed: 0 },
        { ok: false, failed: 0 },
      ]);
      assert.equal(await repo.currentSeq(), before);
      assert.deepEqual(await valueOf(repo, id), { value: "b", revision: before });
    } finally {
      await repo.close();
    }
  });

  it("a committer that died after the catalog step: its events wait, then it is applied (roll forward), no gap", async () => {
    // (recovered here as the outbox keeper does; a reader of the event log helps too, see below)
    const repo = await open();
    try {
      const id = "urn:example:died-after-commit";
      const created = await repo.commit(createSubmodel(id));
      assert.ok(created.ok);
      const round = encodeRound(repo.layout, [writeValue(id, created.seq, "decided")], [0], () => "failed");
      const failedAt = await prepareRound(repo.redis, repo.layout, round, { lockMs: 300, waitMs: 1000 });
      const [seq] = await commitRound(repo.redis, repo.layout, round, failedAt);
      assert.equal(seq, created.seq + 1);
      // ... and the committer is gone: the elements are not written, the event is not deliverable
      assert.deepEqual(await valueOf(repo, id), { value: "0", revision: created.seq });
      assert.equal(await repo.currentSeq(), created.seq, "the heartbeat seq stays below the pending one");
      assert.equal(await deliverableSeq(repo.redis, repo.layout), created.seq);
      // the keeper's recovery applies it
      assert.equal(await recoverPending(repo.redis, repo.layout, 0), 1);
      assert.deepEqual(await valueOf(repo, id), { value: "decided", revision: seq });
      assert.deepEqual(
        (await repo.readEvents!(0, 10)).map((e) => e.seq),
        [created.seq, seq],
      );
      assert.equal(await repo.currentSeq(), seq);
      // applying again changes nothing
      await applyRound(repo.redis, repo.layout, round, [seq]);
      assert.deepEqual(await valueOf(repo, id), { value: "decided", revision: seq });
    } finally {
      await repo.close();
    }
  });

  it("the outbox keeper applies a round left pending, and its heartbeat holds back until then", async () => {
    const repo = await open();
    const bus = createInProcessEventBus();
    const heartbeats: Heartbeat[] = [];
    await bus.subscribe({ onEvent: () => {}, onHeartbeat: (h) => void heartbeats.push(h) });
    try {
      const id = "urn:example:keeper";
      const created = await repo.commit(createSubmodel(id));
      assert.ok(created.ok);
      const { seq } = await committedNotApplied(repo, id, created.seq, "kept");
      const keeper = await startOutboxKeeper({
        repository: repo,
        bus,
        owner: "keeper-test",
        heartbeatMs: 100,
        recoverPendingAfterMs: 500,
      });
      try {
        const until = Date.now() + 5000;
        while (!heartbeats.some((h) => h.seq === seq)) {
          if (Date.now() > until) assert.fail(`no heartbeat reached seq ${seq}: ${JSON.stringify(heartbeats)}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        assert.ok(
          heartbeats.some((h) => h.seq === created.seq),
          "first held back at the last applied seq",
        );
        assert.ok(heartbeats.every((h) => h.seq <= seq));
        assert.deepEqual(await valueOf(repo, id), { value: "kept", revision: seq });
      } finally {
        await keeper.stop();
      }
    } finally {
      await bus.close();
      await repo.close();
    }
  });

  it("a reader of the event log applies a round still pending between its steps, so the log has no gap", async () => {
    const repo = await open();
    try {
      const id = "urn:example:reader-helps";
      const created = await repo.commit(createSubmodel(id));
      assert.ok(created.ok);
      const { round, seq } = await committedNotApplied(repo, id, created.seq, "helped");
      // another replica's commit overtakes it (its event is published first)
      const other = await repo.commit(createSubmodel("urn:example:overtaking"));
      assert.ok(other.ok && other.seq === seq + 1);
      assert.equal(await repo.currentSeq(), created.seq);
      // a subscriber fills the gap from the log: it gets the pending one, applied for it
      assert.deepEqual(
        (await repo.readEvents!(created.seq, 10)).map((e) => e.seq),
        [seq, other.seq],
      );
      assert.deepEqual(await valueOf(repo, id), { value: "helped", revision: seq });
      assert.equal(await repo.currentSeq(), other.seq);
      // the committer's own apply, late, changes nothing
      await applyRound(repo.redis, repo.layout, round, [seq]);
      assert.deepEqual(await valueOf(repo, id), { value: "helped", revision: seq });
    } finally {
      await repo.close();
    }
  });

  it("a reader of a submodel's record applies a round pending on it, so the revision never runs ahead of the elements", async () => {
    const repo = await open();
    try {
      const id = "urn:example:record-reader-helps";
      const created = await repo.commit(createSubmodel(id));
      assert.ok(created.ok);
      // Between the catalog step and the apply: the record already has the round's revision.
      const { seq } = await committedNotApplied(repo, id, created.seq, "behind the record");
      assert.deepEqual(await valueOf(repo, id), { value: "0", revision: created.seq }, "not applied yet");
      const record = await repo.getIdentifiable("submodel", id);
      assert.equal(record?.revision, seq);
      assert.deepEqual(await valueOf(repo, id), { value: "behind the record", revision: seq });

      // The same for a page of submodels (GetAllSubmodels) and a filtered one (by idShort's term).
      const { seq: second } = await committedNotApplied(repo, id, seq, "listed");
      const page = await repo.listIdentifiables("submodel", { limit: 100 });
      assert.equal(page.items.find((item) => item.id === id)?.revision, second);
      assert.deepEqual(await valueOf(repo, id), { value: "listed", revision: second });
      assert.equal(await repo.currentSeq(), second, "nothing is left pending");
    } finally {
      await repo.close();
    }
  });

  it("a committer that died after the catalog step: the next writer of the submodel rolls it forward first", async () => {
    const repo = await open();
    try {
      const id = "urn:example:next-writer";
      const created = await repo.commit(createSubmodel(id));
      assert.ok(created.ok);
      const { seq } = await committedNotApplied(repo, id, created.seq, "first", 200);
      const started = Date.now();
      const next = await repo.commit(writeValue(id, seq, "second"));
      assert.ok(next.ok, "planned on top of the decided write, and it holds");
      assert.ok(Date.now() - started >= 150, "waited for the lock's deadline");
      assert.deepEqual(await valueOf(repo, id), { value: "second", revision: next.seq });
      assert.deepEqual(
        (await repo.readEvents!(created.seq, 10)).map((e) => e.seq),
        [seq, next.seq],
      );
    } finally {
      await repo.close();
    }
  });

  it("a committer that died before the catalog step takes no seq: its lock is fenced away and its late step refused", async () => {
    const repo = await open();
    try {
      const id = "urn:example:died-before-commit";
      const created = await repo.commit(createSubmodel(id));
      assert.ok(created.ok);
      const round = encodeRound(repo.layout, [writeValue(id, created.seq, "never")], [0], () => "failed");
      const failedAt = await prepareRound(repo.redis, repo.layout, round, { lockMs: 200, waitMs: 1000 });
      const next = await repo.commit(writeValue(id, created.seq, "other"));
      assert.ok(next.ok);
      assert.equal(next.seq, created.seq + 1, "gap-free: the dead round took no seq");
      await assert.rejects(commitRound(repo.redis, repo.layout, round, failedAt), RepositoryUnavailableError);
      assert.equal(await repo.currentSeq(), next.seq);
      assert.deepEqual(await valueOf(repo, id), { value: "other", revision: next.seq });
      assert.deepEqual(
        (await repo.readEvents!(0, 10)).map((e) => e.seq),
        [created.seq, next.seq],
      );
    } finally {
      await repo.close();
    }
  });

  it("a content node lost between the catalog step and the apply: the commit is settled once it is back", async () => {
    const repo = await open();
    try {
      // a submodel whose elements are not on the catalog's node
      const catalogNode = await (async () => {
        await repo.commit(createSubmodel("urn:example:probe"));
        return await nodeOf(repo.layout.sequence);
      })();
      let id = "";
      for (let i = 0; !id; i++) {
        const candidate = `urn:example:lost-node:${i}`;
        if ((await ownerOf(repo.layout.submodel(candidate).el)) !== catalogNode) id = candidate;
      }
      const created = await repo.commit(createSubmodel(id));
      assert.ok(created.ok);
      const contentNode = await nodeOf(repo.layout.submodel(id).el);
      const { round, seq } = await committedNotApplied(repo, id, created.seq, "late", 5000);
      await cluster.stopNode(contentNode, true);
      await assert.rejects(applyRound(repo.redis, repo.layout, round, [seq]), RepositoryOutcomeUnknownError);
      // meanwhile: the catalog answers, the pending seq is not delivered, recovery fails and is retried
      assert.equal(await deliverableSeq(repo.redis, repo.layout), created.seq);
      await assert.rejects(recoverPending(repo.redis, repo.layout, 0));
      await cluster.startNode(contentNode);
      const until = Date.now() + 10_000;
      for (;;) {
        try {
          await recoverPending(repo.redis, repo.layout, 0);
          break;
        } catch (error) {
          if (Date.now() > until) throw error;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      assert.deepEqual(await valueOf(repo, id), { value: "late", revision: seq });
      assert.equal(await repo.currentSeq(), seq);
      const seqs = (await repo.readEvents!(0, 10)).map((e) => e.seq);
      assert.deepEqual(
        seqs,
        Array.from({ length: seqs.length }, (_, i) => i + 1),
        "gap-free",
      );
    } finally {
      await repo.close();
    }
  });
});
