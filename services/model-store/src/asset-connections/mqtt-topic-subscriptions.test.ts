import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { test } from "node:test";
import type { MqttClient } from "mqtt";
import { MqttTopicSubscriptions, topicMatches } from "./mqtt-topic-subscriptions.ts";

test("topic filters match as MQTT 3.1.1 §4.7 says", () => {
  const cases: [string, string, boolean][] = [
    ["a/b", "a/b", true],
    ["a/b", "a/b/c", false],
    ["a/+", "a/b", true],
    ["a/+", "a/b/c", false],
    ["a/+/c", "a//c", true],
    ["a/#", "a", true],
    ["a/#", "a/b/c", true],
    ["#", "a/b", true],
    ["+/+", "/a", true],
    ["+", "/a", false],
    ["#", "$SYS/uptime", false],
    ["+/uptime", "$SYS/uptime", false],
    ["$SYS/#", "$SYS/uptime", true],
    ["A/b", "a/b", false],
  ];
  for (const [filter, topic, expected] of cases)
    assert.equal(topicMatches(filter, topic), expected, `${filter} vs ${topic}`);
});

test("a message reaches the listeners of its plain filter and of every matching wildcard filter, once each", async () => {
  // Just what MqttTopicSubscriptions uses of an mqtt.js client: 'message' events and SUBSCRIBE.
  const client = Object.assign(new EventEmitter(), {
    connected: true,
    subscribe: (
      _filter: string,
      _options: unknown,
      callback: (error: Error | null, granted: { qos: number }[]) => void,
    ) => callback(null, [{ qos: 1 }]),
    unsubscribe: () => undefined,
  });
  const subscriptions = new MqttTopicSubscriptions(client as unknown as MqttClient, 1000);
  const got: string[] = [];
  const listener = (name: string) => (payload: Buffer, topic: string) =>
    got.push(`${name} ${topic} ${payload.toString()}`);
  const plain = listener("plain");
  await subscriptions.add("line/1/rate", plain);
  await subscriptions.add("line/1/rate", listener("plain2"));
  await subscriptions.add("line/+/rate", listener("plus"));
  await subscriptions.add("#", listener("hash"));
  await subscriptions.add("line/2/rate", listener("other"));
  client.emit("message", "line/1/rate", Buffer.from("7"));
  client.emit("message", "$SYS/uptime", Buffer.from("1"));
  assert.deepEqual(got.sort(), [
    "hash line/1/rate 7",
    "plain line/1/rate 7",
    "plain2 line/1/rate 7",
    "plus line/1/rate 7",
  ]);
  got.length = 0;
  subscriptions.remove("line/1/rate", plain);
  subscriptions.remove("#", () => undefined); // not a listener of it: nothing changes
  client.emit("message", "line/1/rate", Buffer.from("8"));
  assert.deepEqual(got.sort(), ["hash line/1/rate 8", "plain2 line/1/rate 8", "plus line/1/rate 8"]);
});
