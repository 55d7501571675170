import assert from "node:assert/strict";
import { it } from "node:test";
import { eventBusContract, sampleEvent } from "../../test-support/index.ts";
import { createInProcessEventBus } from "./in-process-event-bus.ts";

const quiet = { onSubscriberError: () => {} };

eventBusContract("in-process", async () => {
  const bus = createInProcessEventBus(quiet);
  return { bus, close: () => bus.close() };
});

it("delivers synchronously: the subscriber has the event when publish resolves", async () => {
  const bus = createInProcessEventBus(quiet);
  const seen: number[] = [];
  await bus.subscribe({ onEvent: (event) => seen.push(event.seq) });
  const publishing = bus.publish(sampleEvent(1));
  assert.deepEqual(seen, [1]);
  await publishing;
  await bus.close();
});

it("keeps one order for every subscriber when a subscriber publishes while handling an event", async () => {
  const bus = createInProcessEventBus(quiet);
  const first: number[] = [];
  const second: number[] = [];
  await bus.subscribe({
    onEvent: (event) => {
      first.push(event.seq);
      if (event.seq === 1) void bus.publish(sampleEvent(2));
    },
  });
  await bus.subscribe({ onEvent: (event) => second.push(event.seq) });
  await bus.publish(sampleEvent(1));
  assert.deepEqual(first, [1, 2]);
  assert.deepEqual(second, [1, 2]);
  await bus.close();
});

it("reports a subscriber's exception to onSubscriberError", async () => {
  const errors: unknown[] = [];
  const bus = createInProcessEventBus({ onSubscriberError: (error) => errors.push(error) });
  await bus.subscribe({
    onEvent: () => {
      throw new Error("boom");
    },
  });
  await bus.publish(sampleEvent(1));
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]), /boom/);
  await bus.close();
});

it("a subscriber added while an event is delivered starts with the next one; one removed meanwhile gets nothing more", async () => {
  const bus = createInProcessEventBus(quiet);
  const late: number[] = [];
  const leaving: number[] = [];
  const staying: number[] = [];
  let leave: (() => Promise<void>) | undefined;
  await bus.subscribe({
    onEvent: (event) => {
      if (event.seq === 1) {
        void bus.subscribe({ onEvent: (e) => late.push(e.seq) });
        void leave?.();
      }
    },
  });
  const subscription = await bus.subscribe({ onEvent: (event) => leaving.push(event.seq) });
  leave = () => subscription.unsubscribe();
  await bus.subscribe({ onEvent: (event) => staying.push(event.seq) });
  await bus.publish(sampleEvent(1));
  await bus.publish(sampleEvent(2));
  assert.deepEqual(late, [2]);
  assert.deepEqual(leaving, []);
  assert.deepEqual(staying, [1, 2]);
  // Unsubscribing twice, or after close, changes nothing for the others.
  await subscription.unsubscribe();
  await bus.publish(sampleEvent(3));
  assert.deepEqual(staying, [1, 2, 3]);
  assert.deepEqual(late, [2, 3]);
  await bus.close();
});
