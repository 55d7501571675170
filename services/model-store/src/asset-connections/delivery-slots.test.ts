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
