import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { createInProcessEventBus, type ChangeEvent, type ChangeEventDraft, type EventBus, type Heartbeat } from "@twinport/shared";
import { startRedis, type RunningServer } from "../../../../tests/support/servers.ts";
import { createRedisRepository, type RedisRepository } from "../redis/redis-repository.ts";
import { startOutboxRelay, type OutboxRelay } from "./outbox-relay.ts";

/** An in-process bus plus a subscriber recording what it delivered, with arrival times. */
async function recordingBus(): Promise<{ bus: EventBus; events: ChangeEvent[]; arrivals: number[]; heartbeats: Heartbeat[] }> {
  const bus = createInProcessEventBus();
  const events: ChangeEvent[] = [];
  const arrivals: number[] = [];
  const heartbeats: Heartbeat[] = [];
  await bus.subscribe({
    onEvent: (event) => {
      events.push(event);
      arrivals.push(performance.now());
    },
    onHeartbeat: (heartbeat) => heartbeats.push(heartbeat),
  });
  return { bus, events, arrivals, heartbeats };
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function draft(n: number): ChangeEventDraft {
  return { kind: "element.value-changed", id: "sm", idShortPath: `p${n}`, payload: { n, list: [], obj: {} }, time: new Date().toISOString() };
}

async function commitEvent(repo: RedisRepository, n: number): Promise<number> {
  const result = await repo.commit({ preconditions: [], ops: [{ op: "put-element", submodelId: "sm", path: `p${n}`, json: String(n) }], event: draft(n) });
  assert.ok(result.ok);
  return result.seq;
}

describe("outbox relay", () => {
  let server: RunningServer;
  let prefixes = 0;
  const cleanups: (() => Promise<void>)[] = [];
  const repository = async (prefix: string) => {
    const repo = await createRedisRepository({ url: server.url, keyPrefix: prefix });
    cleanups.push(() => repo.close());
    return repo;
  };
  const relay = async (options: Parameters<typeof startOutboxRelay>[0]): Promise<OutboxRelay> => {
    const started = await startOutboxRelay(options);
    cleanups.push(() => started.stop());
    return started;
  };

  before(async () => {
    server = await startRedis();
  });
  after(async () => {
    // Relays before repositories (they use their connections), then the server.
    for (const cleanup of cleanups.reverse()) await cleanup();
    await server.stop();
  });

  it("relays every commit once, in seq order, within a few ms, and trims what it delivered", async (t) => {
    const prefix = `relay-${++prefixes}`;
    const repo = await repository(prefix);
    const writer = await repository(prefix);
    const sink = await recordingBus();
    const relayer = await relay({ repository: repo, bus: sink.bus, owner: "a", leaseMs: 1000, heartbeatMs: 200 });
    assert.equal(relayer.isLeader(), true);

    // Sequential commits: measure commit → delivery.
    const latencies: number[] = [];
    for (let n = 1; n <= 50; n++) {
      const committedAt = performance.now();
      await commitEvent(writer, n);
      await waitFor(() => sink.events.length === n, `event ${n}`);
      latencies.push(sink.arrivals[n - 1] - committedAt);
    }
    // Concurrent commits from two connections.
    await Promise.all(Array.from({ length: 150 }, (_, i) => commitEvent(i % 2 ? repo : writer, 51 + i)));
    await waitFor(() => sink.events.length >= 200, "200 events");
    await sleep(100);

    assert.deepEqual(sink.events.map((e) => e.seq), Array.from({ length: 200 }, (_, i) => i + 1), "each seq once, in order");
    const first = sink.events[0];
    assert.deepEqual(first, { ...draft(1), time: first.time, seq: 1, revision: 1 });
    assert.deepEqual(first.payload, { n: 1, list: [], obj: {} }, "[] and {} survive the trip through Redis");
    latencies.sort((x, y) => x - y);
    const median = latencies[Math.floor(latencies.length / 2)];
    t.diagnostic(`commit → event: median ${median.toFixed(2)} ms, max ${latencies[latencies.length - 1].toFixed(2)} ms (includes the commit's reply)`);
    assert.ok(median < 20, `median delivery ${median.toFixed(2)} ms`);

    await waitFor(() => sink.heartbeats.length > 0 && sink.heartbeats[sink.heartbeats.length - 1].seq === 200, "heartbeat at seq 200");
    assert.equal(await repo.redis.xlen(repo.outboxKey), 0, "delivered entries are trimmed");
    assert.equal(await repo.redis.get(repo.key("relay:position")), "200-0");
  });

  it("sends heartbeats every heartbeatMs with the relayed seq", async () => {
    const prefix = `relay-${++prefixes}`;
    const repo = await repository(prefix);
    await commitEvent(repo, 1);
    await commitEvent(repo, 2);
    const sink = await recordingBus();
    const started = Date.now();
    await relay({ repository: repo, bus: sink.bus, owner: "a", leaseMs: 1000, heartbeatMs: 100 });
    await waitFor(() => sink.heartbeats.length >= 6, "six heartbeats");
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 450 && elapsed < 1500, `six heartbeats took ${elapsed} ms`);
    assert.deepEqual(sink.events.map((e) => e.seq), [1, 2], "events waiting in the outbox are relayed on start");
    // Never ahead of the events delivered before it.
    assert.ok(sink.heartbeats.every((h) => h.seq <= 2));
    assert.equal(sink.heartbeats[sink.heartbeats.length - 1].seq, 2);
    assert.ok(!Number.isNaN(Date.parse(sink.heartbeats[0].time)));
    await commitEvent(repo, 3);
    await waitFor(() => sink.heartbeats[sink.heartbeats.length - 1].seq === 3, "heartbeat follows the new seq");
  });

  it("with two replicas only the lease holder publishes; the other takes over when it stops, without loss", async () => {
    const prefix = `relay-${++prefixes}`;
    const writer = await repository(prefix);
    const sinkA = await recordingBus();
    const sinkB = await recordingBus();
    const a = await relay({ repository: await repository(prefix), bus: sinkA.bus, owner: "replica-a", leaseMs: 600, heartbeatMs: 100 });
    const b = await relay({ repository: await repository(prefix), bus: sinkB.bus, owner: "replica-b", leaseMs: 600, heartbeatMs: 100 });
    assert.equal(a.isLeader(), true);
    assert.equal(b.isLeader(), false);

    for (let n = 1; n <= 30; n++) await commitEvent(writer, n);
    await waitFor(() => sinkA.events.length === 30, "30 events through a");
    await sleep(300); // several lease renewals: b must stay silent
    assert.equal(sinkB.events.length, 0);
    assert.equal(sinkB.heartbeats.length, 0);

    await a.stop();
    // Commits while nobody relays yet are kept in the outbox.
    for (let n = 31; n <= 40; n++) await commitEvent(writer, n);
    const stoppedAt = Date.now();
    await waitFor(() => sinkB.events.length === 10, "b relays the rest", 3000);
    assert.ok(Date.now() - stoppedAt < 600, "a released its lease: b took over within one renewal period");
    assert.equal(b.isLeader(), true);
    for (let n = 41; n <= 50; n++) await commitEvent(writer, n);
    await waitFor(() => sinkB.events.length === 20, "b relays new commits");
    assert.deepEqual([...sinkA.events, ...sinkB.events].map((e) => e.seq), Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it("replaces a leader that lost Redis within about one lease time", async () => {
    const prefix = `relay-${++prefixes}`;
    const writer = await repository(prefix);
    const sinkA = await recordingBus();
    const sinkB = await recordingBus();
    const repoA = await repository(prefix);
    const a = await relay({ repository: repoA, bus: sinkA.bus, owner: "replica-a", leaseMs: 600, heartbeatMs: 100 });
    const b = await relay({ repository: await repository(prefix), bus: sinkB.bus, owner: "replica-b", leaseMs: 600, heartbeatMs: 100 });
    for (let n = 1; n <= 10; n++) await commitEvent(writer, n);
    await waitFor(() => sinkA.events.length === 10, "10 events through a");

    // a can no longer renew or save (its main connection is gone), as in a partition; it does not
    // release anything, so b must wait for the lease to expire.
    repoA.redis.disconnect();
    const cutAt = Date.now();
    for (let n = 11; n <= 20; n++) await commitEvent(writer, n);
    await waitFor(() => b.isLeader(), "b leads", 3000);
    const takeover = Date.now() - cutAt;
    assert.ok(takeover < 600 * 2, `took over after ${takeover} ms`);
    await waitFor(() => new Set([...sinkA.events, ...sinkB.events].map((e) => e.seq)).size === 20, "all 20 seqs delivered");
    assert.equal(a.isLeader(), false);
    // At-least-once: nothing lost; a may have delivered some of 11..20 before its lease ran out,
    // and b starts after a's last SAVED position, so duplicates are possible but gaps are not.
    const bSeqs = sinkB.events.map((e) => e.seq);
    assert.deepEqual(bSeqs, [...bSeqs].sort((x, y) => x - y), "b relays in order");
    assert.equal(bSeqs[bSeqs.length - 1], 20);
  });
});
