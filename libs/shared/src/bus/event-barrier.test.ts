import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type RunningServer, startNats } from "../../../../tests/test-support/servers.ts";
import type { ChangeEvent } from "../contracts/index.ts";
import { connectNats, type NatsConnection } from "./connect-nats.ts";
import { createNatsEventBus } from "./nats-event-bus.ts";

// The read cache serves a hit only after the bus's barrier (docs/adr/0014, 0038): when it resolves,
// every event the server routed to this process before the call has reached the subscribers.

const quiet = () => {};
let server: RunningServer;
before(async () => {
  server = await startNats();
});
after(async () => {
  await server?.stop();
});

const event = (seq: number): ChangeEvent => ({
  seq,
  kind: "element.value-changed",
  id: "urn:barrier:sm",
  idShortPath: "P",
  revision: seq,
  time: new Date().toISOString(),
});

/** Records when a connection sends a PING (flush) and when its PONG comes back. */
function recordFlushes(connection: NatsConnection): { count: () => number; log: string[] } {
  const log: string[] = [];
  let count = 0;
  const flush = connection.flush.bind(connection);
  connection.flush = () => {
    const n = ++count;
    log.push(`ping ${n}`);
    return flush().finally(() => log.push(`pong ${n}`));
  };
  return { count: () => count, log };
}

test("a barrier resolves only after every event routed before the call was delivered, under concurrent callers", async () => {
  const publisher = await connectNats({ url: server.url, name: "barrier-publisher", onChange: quiet });
  const subscriber = await connectNats({ url: server.url, name: "barrier-subscriber", onChange: quiet });
  const publishing = createNatsEventBus({ connection: publisher, onSubscriberError: quiet });
  const bus = createNatsEventBus({ connection: subscriber, onSubscriberError: quiet });
  try {
    // Held events (out of order: callers publish concurrently) reach onEventHeld at once, as the
    // read cache needs them; both count as handed to the subscriber.
    const received = new Set<number>();
    await bus.subscribe({
      onEvent: (e) => void received.add(e.seq),
      onEventHeld: (e) => void received.add(e.seq),
    });
    // Many callers, each after its own event was routed (the publisher's flush returned), while
    // other callers' PINGs are out: each must find its own event delivered when its barrier resolves.
    const callers = Array.from({ length: 200 }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, i % 20));
      const seq = i + 1;
      await publishing.publish(event(seq));
      // The shared publish batch hands it to nats at the end of this turn; flush after that.
      await new Promise((resolve) => setImmediate(resolve));
      await publisher.flush();
      await bus.barrier!();
      return received.has(seq) ? undefined : seq;
    });
    const missing = (await Promise.all(callers)).filter((seq) => seq !== undefined);
    assert.deepEqual(missing, [], "events routed before the barrier call and not delivered when it resolved");
  } finally {
    await bus.close();
    await publishing.close();
    await publisher.close();
    await subscriber.close();
  }
});

test("callers of one turn share a PING; a caller of a later turn gets a PING of its own, even while one is out", async () => {
  const connection = await connectNats({ url: server.url, name: "barrier-count", onChange: quiet });
  const bus = createNatsEventBus({ connection, onSubscriberError: quiet });
  const flushes = recordFlushes(connection);
  try {
    const first = bus.barrier!();
    const sameTurn = bus.barrier!();
    assert.equal(first, sameTurn, "callers of one turn share one barrier");
    // Next turn: the first PING is out now.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(flushes.count(), 1);
    const later = bus.barrier!();
    assert.notEqual(later, first, "a PING sent before the call proves nothing to it");
    const alsoLater = bus.barrier!();
    assert.equal(alsoLater, later, "callers of that turn share its PING");
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(flushes.count(), 2, "the second PING left at the end of its turn, the first still out or not");
    await first;
    await later;
    assert.equal(flushes.count(), 2, "no more PINGs than turns with callers");
    // Idle again: a caller gets a PING of its own at once.
    await bus.barrier!();
    assert.equal(flushes.count(), 3);
  } finally {
    await bus.close();
    await connection.close();
  }
});
