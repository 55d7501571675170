import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { fileStoreContract } from "@twinport/shared/test-support";
import { Redis } from "ioredis";
import { startRedis } from "../../../../tests/test-support/servers.ts";
import { createRedisFileStore } from "./file-store-redis.ts";

// One real redis-server for the whole file; every store gets an empty keyspace of its own prefix.
const server = await startRedis();
after(() => server.stop());
let n = 0;

// A small chunk size makes every file of the contract span several chunks.
fileStoreContract("redis", () =>
  createRedisFileStore({ url: server.url, keyPrefix: `files-${++n}`, chunkBytes: 64 * 1024 }),
);

describe("redis file store", () => {
  it("a hold that shares a stored file writes no bytes (only a new path stores its blob)", async () => {
    const store = await createRedisFileStore({ url: server.url, keyPrefix: "share" });
    const redis = new Redis(server.url);
    const blobsWritten = async () => {
      const line = (await redis.info("commandstats")).split("\n").find((l) => l.startsWith("cmdstat_pexpire:"));
      return Number(/calls=(\d+)/.exec(line ?? "")?.[1] ?? 0);
    };
    try {
      const file = { contentType: "application/pdf", bytes: new Uint8Array(100_000).fill(7) };
      assert.equal(await store.hold("/aasx/files/manual.pdf", "package-info:a", file), "created");
      const before = await blobsWritten();
      assert.equal(await store.hold("/aasx/files/manual.pdf", "package-info:b", file), "shared");
      assert.equal(await blobsWritten(), before, "sharing wrote a blob");
      assert.equal(await store.release("/aasx/files/manual.pdf", "package-info:a"), "kept");
      assert.equal(await store.release("/aasx/files/manual.pdf", "package-info:b"), "deleted");
    } finally {
      redis.disconnect();
      await store.clear();
      await store.close();
    }
  });

  it("lists a prefix of a large index in steps, every entry once", async () => {
    const store = await createRedisFileStore({ url: server.url, keyPrefix: "many" });
    try {
      const bytes = new Uint8Array(1);
      for (let i = 0; i < 2_500; i++)
        await store.put(`${i % 2 === 0 ? "even" : "odd"}:${String(i).padStart(4, "0")}`, {
          contentType: "text/plain",
          bytes,
        });
      const even = (await store.list("even:")).map((info) => info.path);
      assert.equal(even.length, 1_250);
      assert.equal(new Set(even).size, 1_250);
      assert.ok(even.every((path, i) => path === `even:${String(i * 2).padStart(4, "0")}`));
      assert.equal((await store.list()).length, 2_500);
    } finally {
      await store.clear();
      await store.close();
    }
  });

  it("opening Redis removes the blobs a killed process unlinked but did not delete, not a blob being written, and no linked file", async () => {
    const first = await createRedisFileStore({ url: server.url, keyPrefix: "orphans" });
    const redis = new Redis(server.url);
    let second: Awaited<ReturnType<typeof createRedisFileStore>> | undefined;
    try {
      await first.put("/aasx/files/manual.pdf", {
        contentType: "application/pdf",
        bytes: new Uint8Array(3000).fill(1),
      });
      const linked = await redis.keys("{orphans}:file:*");
      // A process killed right after the script that unlinked its blob: the bytes stay, no expiry.
      await redis.hset("{orphans}:file:0123456789abcdef01234567", "size", "5", "0", "bytes");
      // A writer of another replica in the middle of a put: its blob still carries the expiry.
      await redis.hset("{orphans}:file:fedcba9876543210fedcba98", "size", "5", "0", "bytes");
      await redis.pexpire("{orphans}:file:fedcba9876543210fedcba98", 3_600_000);

      second = await createRedisFileStore({ url: server.url, keyPrefix: "orphans" });
      const deadline = Date.now() + 5_000;
      while ((await redis.exists("{orphans}:file:0123456789abcdef01234567")) === 1 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(
        (await redis.keys("{orphans}:file:*")).sort(),
        [...linked, "{orphans}:file:fedcba9876543210fedcba98"].sort(),
      );
      assert.equal((await second.get("/aasx/files/manual.pdf"))?.bytes.length, 3000);
    } finally {
      redis.disconnect();
      await first.clear();
      await first.close();
      await second?.close();
    }
  });

  it("keeps its keys in the store's hash tag, chunked, and leaves no blob behind after replace, delete and clear", async () => {
    const store = await createRedisFileStore({ url: server.url, keyPrefix: "layout", chunkBytes: 1000 });
    const redis = new Redis(server.url);
    try {
      await store.put("/a.bin", { contentType: "application/octet-stream", bytes: new Uint8Array(2500) });
      let keys = (await redis.keys("*")).filter((key) => key.startsWith("{layout}"));
      assert.deepEqual(keys.filter((key) => key !== "{layout}:files").length, 1, "one blob");
      const blob = keys.find((key) => key.startsWith("{layout}:file:"))!;
      assert.equal(await redis.hlen(blob), 4, "3 chunks of ≤1000 bytes plus the size field");
      assert.equal(await redis.pttl(blob), -1, "a linked blob does not expire");
      await store.put("/a.bin", { contentType: "text/plain", bytes: new Uint8Array(10) });
      keys = await redis.keys("{layout}:file:*");
      assert.equal(keys.length, 1, "the replaced blob is gone");
      await store.delete("/a.bin");
      assert.deepEqual(await redis.keys("{layout}:file:*"), []);
      await store.put("/b", { contentType: "text/plain", bytes: new Uint8Array(5) });
      await store.clear();
      assert.deepEqual(await redis.keys("{layout}*"), []);
    } finally {
      redis.disconnect();
      await store.close();
    }
  });
});
