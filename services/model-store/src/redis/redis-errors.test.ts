import assert from "node:assert/strict";
import { test } from "node:test";
import { RepositoryUnavailableError } from "@twinport/shared";
import { Redis } from "ioredis";
import { startRedis } from "../../../../tests/test-support/servers.ts";
import { plainReason, toRepositoryError } from "./redis-errors.ts";

test("a call on a connection to a Redis that is gone says so in plain words, not in ioredis' option names", async () => {
  const server = await startRedis();
  const redis = new Redis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on("error", () => {}); // reconnect attempts to the stopped server, expected here
  try {
    await redis.connect();
    await server.stop();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const error = await redis.get("x").then(
      () => assert.fail("a call to a stopped Redis answered"),
      (failure: unknown) => failure,
    );
    const mapped = toRepositoryError(error);
    assert.ok(mapped instanceof RepositoryUnavailableError);
    assert.doesNotMatch(mapped.message, /enableOfflineQueue|maxRetriesPerRequest|Stream isn't writeable/);
    assert.match(mapped.message, /^Redis is unavailable: the connection to Redis (is down|is closed|was lost)/);
  } finally {
    redis.disconnect();
  }
});

test("other failures keep their own message", () => {
  assert.equal(
    plainReason(new Error("LOADING Redis is loading the dataset in memory")),
    "LOADING Redis is loading the dataset in memory",
  );
});

test("a refusal raised inside a script is unavailable, without the script's digest and line", async () => {
  // A black-box finding: a 504 quoted "NOREPLICAS … script: <sha1>, on @user_script:275.".
  const server = await startRedis();
  const redis = new Redis(server.url, { lazyConnect: true });
  try {
    await redis.connect();
    await redis.config("SET", "min-replicas-to-write", "1");
    const error = await redis.eval("return redis.call('SET', KEYS[1], 'v')", 1, "k").then(
      () => assert.fail("Redis took a write without replicas"),
      (failure: unknown) => failure,
    );
    assert.match(String((error as Error).message), /script: [0-9a-f]{40}/, "what Redis says");
    const mapped = toRepositoryError(error);
    assert.ok(mapped instanceof RepositoryUnavailableError);
    assert.match(mapped.message, /^Redis is unavailable: NOREPLICAS/);
    assert.doesNotMatch(mapped.message, /script|user_script|[0-9a-f]{40}/);
  } finally {
    redis.disconnect();
    await server.stop();
  }
});
