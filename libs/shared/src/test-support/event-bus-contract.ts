import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ChangeEvent, Heartbeat } from "../contracts/index.ts";
import type { EventBus, EventHandlers } from "../engine/ports/index.ts";

export interface EventBusFixture {
  /** Publishes, and hosts the first subscriber. */
  bus: EventBus;
  /**
   * A second bus on the same transport but its own connection (as a second process would have);
   * hosts the second subscriber. Absent for in-process buses: `bus` is used.
   */
  bus2?: EventBus;
  close(): Promise<void>;
}

/** The behaviour every EventBus implementation must show (in-process and NATS both run it). */
export function eventBusContract(name: string, make: () => Promise<EventBusFixture>): void {
  describe(`EventBus contract: ${name}`, () => {
    it("delivers events intact and in publish order", async () => {
      await withFixture(make, async ({ bus }) => {
        const received = recorder();
        await bus.subscribe(received.handlers);
        const events = Array.from({ length: 300 }, (_, i) => sampleEvent(i + 1));
        for (const event of events) await bus.publish(event);
        await waitUntil(() => received.events.length >= events.length, "all events delivered");
        assert.deepEqual(received.events, events);
      });
    });

    it("fans out every event to each subscriber, in order", async () => {
      await withFixture(make, async ({ bus, bus2 }) => {
        const first = recorder();
        const second = recorder();
        await bus.subscribe(first.handlers);
        await (bus2 ?? bus).subscribe(second.handlers);
        for (let seq = 1; seq <= 100; seq++) await bus.publish(sampleEvent(seq));
        await waitUntil(
          () => first.events.length >= 100 && second.events.length >= 100,
          "both subscribers got every event",
        );
        const expected = Array.from({ length: 100 }, (_, i) => i + 1);
        assert.deepEqual(
          first.events.map((e) => e.seq),
          expected,
        );
        assert.deepEqual(
          second.events.map((e) => e.seq),
          expected,
        );
      });
    });

    it("stops delivering to a subscription once it is unsubscribed", async () => {
      await withFixture(make, async ({ bus, bus2 }) => {
        const leaving = recorder();
        const staying = recorder();
        const subscription = await (bus2 ?? bus).subscribe(leaving.handlers);
        await bus.subscribe(staying.handlers);
        await bus.publish(sampleEvent(1));
        await waitUntil(
          () => leaving.events.length === 1 && staying.events.length === 1,
          "first event delivered to both",
        );

        await subscription.unsubscribe();
        await bus.publish(sampleEvent(2));
        await bus.publish(sampleEvent(3));
        await waitUntil(() => staying.events.length === 3, "later events delivered to the remaining subscriber");
        // The remaining subscriber is on a connection at least as slow as the leaving one would be;
        // give stragglers one more beat before checking nothing arrived.
        await sleep(50);
        assert.deepEqual(
          leaving.events.map((e) => e.seq),
          [1],
        );
      });
    });

    it("delivers heartbeats to onHeartbeat, ordered with the events around them", async () => {
      await withFixture(make, async ({ bus, bus2 }) => {
        const log: string[] = [];
        const heartbeats: Heartbeat[] = [];
        await (bus2 ?? bus).subscribe({
          onEvent: (event) => log.push(`event ${event.seq}`),
          onHeartbeat: (heartbeat) => {
            heartbeats.push(heartbeat);
            log.push(`heartbeat ${heartbeat.seq}`);
          },
        });
        await bus.publish(sampleEvent(1));
        await bus.publishHeartbeat({ seq: 1, time: "2026-11-01T00:00:01.000Z" });
        await bus.publish(sampleEvent(2));
        await bus.publishHeartbeat({ seq: 2, time: "2026-11-01T00:00:02.000Z" });
        await waitUntil(() => log.length >= 4, "events and heartbeats delivered");
        assert.deepEqual(log, ["event 1", "heartbeat 1", "event 2", "heartbeat 2"]);
        assert.deepEqual(heartbeats[1], { seq: 2, time: "2026-11-01T00:00:02.000Z" });
      });
    });

    it("keeps delivering to others when a subscriber throws, and the publisher is not affected", async () => {
      await withFixture(make, async ({ bus, bus2 }) => {
        const healthy = recorder();
        let thrown = 0;
        await bus.subscribe({
          onEvent: () => {
            thrown++;
            throw new Error("subscriber failure (expected by the test)");
          },
        });
        await (bus2 ?? bus).subscribe(healthy.handlers);
        for (let seq = 1; seq <= 5; seq++) await bus.publish(sampleEvent(seq));
        await waitUntil(() => healthy.events.length === 5 && thrown === 5, "every event reached both subscribers");
        assert.deepEqual(
          healthy.events.map((e) => e.seq),
          [1, 2, 3, 4, 5],
        );
      });
    });

    it("refuses to publish after close", async () => {
      await withFixture(make, async ({ bus }) => {
        await bus.close();
        await assert.rejects(bus.publish(sampleEvent(1)));
      });
    });
  });
}

async function withFixture(
  make: () => Promise<EventBusFixture>,
  body: (fixture: EventBusFixture) => Promise<void>,
): Promise<void> {
  const fixture = await make();
  try {
    await body(fixture);
  } finally {
    await fixture.close();
  }
}

function recorder(): { events: ChangeEvent[]; handlers: EventHandlers } {
  const events: ChangeEvent[] = [];
  return { events, handlers: { onEvent: (event) => events.push(event) } };
}

/** A realistic event: nested payload, optional fields, non-ASCII text. */
export function sampleEvent(seq: number): ChangeEvent {
  const elementEvent = seq % 2 === 0;
  return {
    seq,
    kind: elementEvent ? "element.value-changed" : "submodel.updated",
    id: "https://example.com/ids/sm/Nameplate",
    // Absent rather than undefined: a JSON transport drops undefined keys.
    ...(elementEvent ? { idShortPath: `Markings.Marking[${seq % 7}].Name` } : {}),
    revision: seq,
    payload: { modelType: "Property", idShort: "Name", valueType: "xs:string", value: `Grüße ${seq} – µ` },
    origin: "http",
    correlationId: `corr-${seq}`,
    time: "2026-11-01T12:00:00.000Z",
  };
}

export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting until ${what}`);
    await sleep(5);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
