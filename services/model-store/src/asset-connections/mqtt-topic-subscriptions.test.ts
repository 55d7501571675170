import assert from "node:assert/strict";
import { test } from "node:test";
import { topicMatches } from "./mqtt-topic-subscriptions.ts";

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
  for (const [filter, topic, expected] of cases) assert.equal(topicMatches(filter, topic), expected, `${filter} vs ${topic}`);
});
