import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ChangeEvent, Heartbeat } from "../contracts/index.ts";
import { createEventOrder, type EventOrderOptions } from "./event-order.ts";

const event = (seq: number): ChangeEvent => ({
  seq,
  revision: seq,
  kind: "element.value-changed",
  id: "sm",
  idShortPath: `p${seq}`,
  time: "2026-01-01T00:00:00.000Z",
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function recorder(options: Partial<EventOrderOptions> = {}) {
  const seen: (number | string)[] = [];
  const order = createEventOrder({
    deliver: (e) => seen.push(e.seq),
    deliverHeartbeat: (h: Heartbeat) => seen.push(`hb${h.seq}`),
    windowMs: 20,
    ...options,
  });
  return { order, seen };
}

describe("event order", () => {
  it("delivers in seq order: a later event waits for the earlier ones, duplicates are dropped", () => {
    const { order, seen } = recorder();
    order.event(event(5));
    order.event(event(7));
    order.event(event(8));
    assert.deepEqual(seen, [5]);
    assert.equal(order.isHeld(7), true);
    order.event(event(6));
    assert.deepEqual(seen, [5, 6, 7, 8]);
    order.event(event(7));
    order.event(event(3));
    assert.deepEqual(seen, [5, 6, 7, 8]);
    order.close();
  });

  it("holds a heartbeat ahead of the events until they arrive", () => {
    const { order, seen } = recorder();
    order.event(event(1));
    order.heartbeat({ seq: 3, time: "t" });
    assert.deepEqual(seen, [1]);
    order.event(event(2));
    order.event(event(3));
    assert.deepEqual(seen, [1, 2, 3, "hb3"]);
    order.heartbeat({ seq: 3, time: "t" });
    assert.deepEqual(seen, [1, 2, 3, "hb3", "hb3"]);
    order.close();
  });

  it("fills a gap that stays open from the log, then goes on in order", async () => {
    const asked: [number, number][] = [];
    const { order, seen } = recorder({
      fetch: async (after, limit) => {
        asked.push([after, limit]);
        return [event(2), event(3)].filter((e) => e.seq > after).slice(0, limit);
      },
    });
    order.event(event(1));
    order.event(event(4));
    await sleep(60);
    assert.deepEqual(seen, [1, 2, 3, 4]);
    assert.deepEqual(asked, [[1, 3]]);
    order.event(event(5));
    assert.deepEqual(seen, [1, 2, 3, 4, 5]);
    order.close();
  });

  it("a heartbeat ahead of everything is filled from the log too (a publisher died after its commit)", async () => {
    const { order, seen } = recorder({ fetch: async (after) => [event(after + 1), event(after + 2)] });
    order.event(event(10));
    order.heartbeat({ seq: 12, time: "t" });
    await sleep(60);
    assert.deepEqual(seen, [10, 11, 12, "hb12"]);
    order.close();
  });

  it("a gap the log cannot fill reaches the subscriber as it is (it resyncs)", async () => {
    // The log no longer starts right after the gap: it was trimmed.
    const { order, seen } = recorder({ fetch: async () => [event(9)] });
    order.event(event(1));
    order.event(event(10));
    order.event(event(11));
    await sleep(60);
    assert.deepEqual(seen, [1, 10, 11]);
    const unavailable = recorder({ fetch: async () => undefined });
    unavailable.order.event(event(1));
    unavailable.order.event(event(3));
    await sleep(60);
    assert.deepEqual(unavailable.seen, [1, 3]);
    order.close();
    unavailable.order.close();
  });

  it("reset forgets the position and what was held", () => {
    const { order, seen } = recorder();
    order.event(event(1));
    order.event(event(3));
    order.reset();
    order.event(event(7));
    assert.deepEqual(seen, [1, 7]);
    order.close();
  });
});
