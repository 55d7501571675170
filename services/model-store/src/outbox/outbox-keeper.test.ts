import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type ChangeEvent,
  type ChangeEventDraft,
  connectNats,
  createNatsEventBus,
  type EventBus,
  type Heartbeat,
} from "@twinport/shared";
import { type RunningServer, startNats, startRedis } from "../../../../tests/test-support/servers.ts";
import { createRedisRepository, type RedisRepository } from "../redis/redis-repository.ts";
import { type OutboxKeeper, startOutboxKeeper } from "./outbox-keeper.ts";

const quiet = () => {};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for: ${what}`);
    await sleep(5);
  }
}

function draft(n: number): ChangeEventDraft {
  return {
    kind: "element.value-changed",
    id: "sm",
    idShortPath: `p${n}`,
    payload: { n, list: [], obj: {} },
    time: new Date().toISOString(),
  };
}

/** A commit whose event is NOT published: as if its model-store died right after the commit. */
async function commitSilently(repo: RedisRepository, n: number): Promise<ChangeEvent> {
  const result = await repo.commit({
    preconditions: [],
    ops: [{ op: "put-element", submodelId: "sm", path: `p${n}`, json: String(n) }],
    event: draft(n),
  });
  assert.ok(result.ok);
  return result.event;
}

describe("outbox keeper and the event log", () => {
  let redis: RunningServer;
  let nats: RunningServer;
  let prefixes = 0;
  const cleanups: (() => Promise<unknown>)[] = [];
  const repository = async () => {
    const repo = await createRedisRepository({ url: redis.url, keyPrefix: `keeper-${++prefixes}` });
    cleanups.push(() => repo.close());
    return repo;
  };
  const connection = async (name: string): Promise<Awaited<ReturnType<typeof connectNats>>> => {
    const c = await connectNats({ url: nats.url, name, onChange: quiet });
    cleanups.push(() => c.close());
    return c;
  };
  const bus = async (name: string, repo?: RedisRepository): Promise<EventBus> => {
    const b = createNatsEventBus({
      connection: await connection(name),
      onSubscriberError: quiet,
      fetchEvents: repo ? (after, limit) => repo.readEvents!(after, limit) : undefined,
      reorderWindowMs: 30,
    });
    cleanups.push(() => b.close());
    return b;
  };
  const keeper = async (options: Parameters<typeof startOutboxKeeper>[0]): Promise<OutboxKeeper> => {
    const k = await startOutboxKeeper(options);
    cleanups.push(() => k.stop());
    return k;
  };
  const recorder = async (b: EventBus) => {
    const events: number[] = [];
    const heartbeats: Heartbeat[] = [];
    await b.subscribe({ onEvent: (e) => events.push(e.seq), onHeartbeat: (h) => heartbeats.push(h) });
    return { events, heartbeats };
  };

  before(async () => {
    redis = await startRedis();
    nats = await startNats();
  });
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await nats?.stop();
    await redis?.stop();
  });

  it("heartbeats carry the store's seq, and the log is trimmed to its retention", async () => {
    const repo = await repository();
    const subscriber = await recorder(await bus("hb-sub", repo));
    for (let n = 1; n <= 400; n++) await commitSilently(repo, n);
    const k = await keeper({ repository: repo, bus: await bus("hb-pub"), owner: "k1", heartbeatMs: 50, retention: 50 });
    await waitFor(() => subscriber.heartbeats.some((h) => h.seq === 400), "a heartbeat at seq 400");
    const length = await repo.redis.xlen(repo.outboxKey);
    assert.ok(length >= 50 && length < 400, `the log holds ${length} events`);
    assert.deepEqual(
      (await repo.readEvents!(399, 10)).map((e) => e.seq),
      [400],
    );
    await k.stop(); // its heartbeats would reach the next tests' subscribers
  });

  it("trims by age as well as by count, and GetEvents' bounds say where the log starts", async () => {
    const repo = await repository();
    for (let n = 1; n <= 20; n++) await commitSilently(repo, n);
    // Count: 15 newest kept; age not reached yet.
    const ageMs = 1200;
    const k = await keeper({
      repository: repo,
      bus: await bus("age-pub"),
      owner: "k-age",
      heartbeatMs: 50,
      retention: 15,
      retentionMaxAgeMs: ageMs,
    });
    const boundsOnceDone = async (oldest: number, untilMs: number) => {
      let bounds = await repo.eventLogBounds!();
      for (const until = Date.now() + untilMs; bounds.oldest !== oldest && Date.now() < until; await sleep(20))
        bounds = await repo.eventLogBounds!();
      return bounds;
    };
    assert.deepEqual(await boundsOnceDone(6, 500), { oldest: 6, latest: 20 });
    // The keeper knew seq 20 by now (it trimmed by count up to it); 21 comes 600 ms later. So there
    // is a window of 600 ms, however slow the machine, in which 20 is older than the age and 21 is
    // not: everything up to 20 goes, 21 stays.
    const countTrimmed = Date.now();
    await sleep(600);
    await commitSilently(repo, 21);
    await sleep(countTrimmed + ageMs + 50 - Date.now());
    await commitSilently(repo, 22);
    assert.deepEqual(await boundsOnceDone(21, 500), { oldest: 21, latest: 22 });
    assert.deepEqual(
      (await repo.readEvents!(0, 10)).map((e) => e.seq),
      [21, 22],
    );
    await k.stop();
  });

  it("events committed but never published reach subscribers from the log", async () => {
    const repo = await repository();
    const publisher = await bus("fill-pub");
    const subscriber = await recorder(await bus("fill-sub", repo));
    const k = await keeper({ repository: repo, bus: publisher, owner: "k2", heartbeatMs: 50 });
    const first = await commitSilently(repo, 1);
    await publisher.publish(first);
    await waitFor(() => subscriber.events.length === 1, "the first event");
    // Two commits whose publisher "died": the next heartbeat reveals them, the log fills them in.
    await commitSilently(repo, 2);
    await commitSilently(repo, 3);
    await waitFor(() => subscriber.events.length === 3, "the unpublished events");
    assert.deepEqual(subscriber.events, [first.seq, first.seq + 1, first.seq + 2]);
    // And the stream goes on in order.
    await publisher.publish(await commitSilently(repo, 4));
    await waitFor(() => subscriber.events.length === 4, "the next event");
    assert.deepEqual(subscriber.events, [first.seq, first.seq + 1, first.seq + 2, first.seq + 3]);
    await k.stop();
  });

  it("events of two publishers that cross on the way are delivered in seq order", async () => {
    const repo = await repository();
    const [a, b] = [await bus("cross-a"), await bus("cross-b")];
    const subscriber = await recorder(await bus("cross-sub", repo));
    const events = [];
    for (let n = 1; n <= 41; n++) events.push(await commitSilently(repo, n));
    // A subscription starts where it joins: the first event sets its position.
    await a.publish(events[0]!);
    await waitFor(() => subscriber.events.length === 1, "the first event");
    // Then A and B, each pair published in the wrong order.
    for (let i = 1; i < events.length; i += 2) {
      await b.publish(events[i + 1]!);
      await a.publish(events[i]!);
    }
    await waitFor(() => subscriber.events.length >= 41, `all 41 events (got ${subscriber.events.join(",")})`);
    assert.deepEqual(
      subscriber.events,
      events.map((e) => e.seq),
    );
  });

  it("one keeper at a time; when it stops another takes over", async () => {
    const repo = await repository();
    const subscriber = await recorder(await bus("lease-sub"));
    const first = await keeper({
      repository: repo,
      bus: await bus("lease-1"),
      owner: "one",
      heartbeatMs: 30,
      leaseMs: 300,
    });
    const second = await keeper({
      repository: repo,
      bus: await bus("lease-2"),
      owner: "two",
      heartbeatMs: 30,
      leaseMs: 300,
    });
    assert.equal(first.isLeader(), true);
    assert.equal(second.isLeader(), false);
    await first.stop();
    await waitFor(() => second.isLeader(), "the second keeper to take over");
    const seen = subscriber.heartbeats.length;
    await waitFor(() => subscriber.heartbeats.length > seen + 2, "heartbeats from the new keeper");
  });
});
