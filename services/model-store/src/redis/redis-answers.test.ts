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
  const answers = watchRedisAnswers(redis, { intervalMs: 100, timeoutMs: 300 });
  try {
    assert.ok(await until(() => answers.ready(), 2_000), "ready while Redis answers");
    process.kill(server.pid, "SIGSTOP");
    try {
      assert.ok(await until(() => !answers.ready(), 2_000), "not ready while Redis does not answer");
      assert.equal(redis.status, "ready", "the connection itself still looks ready");
    } finally {
      process.kill(server.pid, "SIGCONT");
    }
    assert.ok(await until(() => answers.ready(), 2_000), "ready again once Redis answers");
  } finally {
    answers.stop();
    redis.disconnect();
    await server.stop();
  }
});
