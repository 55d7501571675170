import assert from "node:assert/strict";
import { test } from "node:test";
import { DeliverySlots } from "./delivery-slots.ts";

test("at most `limit` holders at a time; a released slot goes to the longest waiter", async () => {
  const slots = new DeliverySlots(2);
  const order: string[] = [];
  await slots.acquire();
  await slots.acquire();
  const third = slots.acquire().then(() => order.push("third"));
  const fourth = slots.acquire().then(() => order.push("fourth"));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual([...order], [], "both wait while two hold a slot");
  slots.release();
  await third;
  assert.deepEqual([...order], ["third"]);
  slots.release();
  await fourth;
  assert.deepEqual([...order], ["third", "fourth"]);
  slots.release();
  slots.release();
  await slots.acquire();
  await slots.acquire(); // two free again
  const fifth = slots.acquire().then(() => order.push("fifth"));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual([...order], ["third", "fourth"]);
  slots.release();
  await fifth;
});

test("a released slot goes to its waiter after what the turn scheduled before the release (the store's send)", async () => {
  const slots = new DeliverySlots(1);
  await slots.acquire();
  const order: string[] = [];
  const waiter = slots.acquire().then(() => order.push("waiter"));
  // As the store's commit queue does: its send is scheduled (setImmediate) in the turn the answer
  // arrives, and the answer's continuations release slots in that same turn.
  setImmediate(() => order.push("send"));
  slots.release();
  await Promise.resolve();
  assert.deepEqual(order, [], "not handed over within the releasing turn");
  await waiter;
  assert.deepEqual(order, ["send", "waiter"]);
});

test("slots released in one turn go to as many waiters at its end; a slot without a waiter is free again", async () => {
  const slots = new DeliverySlots(3);
  for (let i = 0; i < 3; i++) await slots.acquire();
  const got: number[] = [];
  const waiters = [1, 2].map((n) => slots.acquire().then(() => got.push(n)));
  slots.release();
  slots.release();
  slots.release(); // one more than there are waiters
  await Promise.all(waiters);
  assert.deepEqual(got, [1, 2]);
  // Two held by the waiters, one free: one more acquire succeeds at once, the next waits.
  let fourth = false;
  await slots.acquire();
  void slots.acquire().then(() => {
    fourth = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(fourth, false);
});
