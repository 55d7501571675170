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
