import assert from "node:assert/strict";
import { test } from "node:test";
import { Redis } from "ioredis";
import { startRedis } from "../../../../tests/test-support/servers.ts";
import { watchRedisAnswers } from "./redis-answers.ts";

const until = async (condition: () => boolean, ms: number): Promise<boolean> => {
  const started = Date.now();
  while (!condition() && Date.now() - started < ms) await new Promise((resolve) => setTimeout(resolve, 25));
  return condition();
};

test("a Redis that keeps its connection but does not answer (SIGSTOP) is not ready; answering again, it is", async () => {
  const server = await startRedis();
  const redis = new Redis(server.url);
  redis.on("error", () => {}); // none expected; a stopped server only stops answering
  const changes: boolean[] = [];
  const answers = watchRedisAnswers(redis, {
    intervalMs: 100,
    timeoutMs: 300,
    onChange: (ready) => changes.push(ready),
  });
  try {
    assert.ok(await until(() => answers.ready(), 2_000), "ready while Redis answers");
    // The connection coming up is a change too, reported at the next tick.
    assert.ok(await until(() => changes.at(-1) === true, 2_000), "reported ready");
    const seenBefore = changes.length;
    process.kill(server.pid, "SIGSTOP");
    try {
      assert.ok(await until(() => !answers.ready(), 2_000), "not ready while Redis does not answer");
      assert.equal(redis.status, "ready", "the connection itself still looks ready");
    } finally {
      process.kill(server.pid, "SIGCONT");
    }
    assert.ok(await until(() => answers.ready(), 2_000), "ready again once Redis answers");
    // The gauge's feed: the stop and the recovery, seen without any connection event.
    assert.deepEqual(changes.slice(seenBefore), [false, true]);
  } finally {
    answers.stop();
    redis.disconnect();
    await server.stop();
  }
});

test("a PING the client's command timeout refuses is no answer: not ready stays, without flapping, until one is answered", async () => {
  const server = await startRedis();
  // As the store's clients are made: a command timeout shorter than the check's own bound.
  const redis = new Redis(server.url, { commandTimeout: 100, maxRetriesPerRequest: 1 });
  redis.on("error", () => {});
  const answers = watchRedisAnswers(redis, { intervalMs: 200, timeoutMs: 150 });
  try {
    assert.ok(await until(() => answers.ready(), 2_000), "ready while Redis answers");
    process.kill(server.pid, "SIGSTOP");
    try {
      assert.ok(await until(() => !answers.ready(), 2_000), "not ready while Redis does not answer");
      const seen: boolean[] = [];
      const started = Date.now();
      while (Date.now() - started < 1_500) {
        seen.push(answers.ready());
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(
        !seen.includes(true),
        `ready ${seen.filter(Boolean).length} of ${seen.length} times while Redis was stopped`,
      );
    } finally {
      process.kill(server.pid, "SIGCONT");
    }
    assert.ok(await until(() => answers.ready(), 3_000), "ready again once Redis answers");
  } finally {
    answers.stop();
    redis.disconnect();
    await server.stop();
  }
});
