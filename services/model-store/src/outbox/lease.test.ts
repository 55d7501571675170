import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { RepositoryUnavailableError } from "@twinport/shared";
import { Redis } from "ioredis";
import { freePort, type RunningServer, startRedis } from "../../../../tests/test-support/servers.ts";
import { acquireLease, releaseLease, renewLease } from "./lease.ts";

describe("lease", () => {
  let server: RunningServer;
  let redis: Redis;
  before(async () => {
    server = await startRedis();
    redis = new Redis(server.url);
  });
  after(async () => {
    redis.disconnect();
    await server.stop();
  });

  it("has one holder at a time; only the holder renews or releases", async () => {
    const key = "{t}:lease:a";
    assert.equal(await acquireLease(redis, key, "one", 5000), true);
    assert.equal(await acquireLease(redis, key, "two", 5000), false);
    assert.equal(await acquireLease(redis, key, "one", 5000), true, "acquiring one's own lease renews it");
    assert.equal(await renewLease(redis, key, "two", 5000), false);
    assert.equal(await releaseLease(redis, key, "two"), false);
    assert.equal(await redis.get(key), "one");
    assert.equal(await renewLease(redis, key, "one", 5000), true);
    assert.ok((await redis.pttl(key)) > 4000);
    assert.equal(await releaseLease(redis, key, "one"), true);
    assert.equal(await redis.exists(key), 0);
    assert.equal(await renewLease(redis, key, "one", 5000), false, "a released lease cannot be renewed");
    assert.equal(await acquireLease(redis, key, "two", 5000), true);
  });

  it("can be taken over once it expired, and the old holder cannot renew it", async () => {
    const key = "{t}:lease:b";
    assert.equal(await acquireLease(redis, key, "one", 150), true);
    assert.equal(await acquireLease(redis, key, "two", 150), false);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(await acquireLease(redis, key, "two", 5000), true);
    assert.equal(await renewLease(redis, key, "one", 5000), false);
    assert.equal(await releaseLease(redis, key, "one"), false);
    assert.equal(await redis.get(key), "two");
  });

  it("reports an unreachable Redis as RepositoryUnavailableError", async () => {
    const down = new Redis(`redis://127.0.0.1:${await freePort()}`, {
      enableOfflineQueue: false,
      retryStrategy: () => null,
      lazyConnect: true,
    });
    down.on("error", () => {});
    try {
      await assert.rejects(acquireLease(down, "{t}:x", "one", 1000), RepositoryUnavailableError);
    } finally {
      down.disconnect();
    }
  });
});
