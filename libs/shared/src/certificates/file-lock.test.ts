import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { withFileLock } from "./file-lock.ts";

describe("withFileLock", () => {
  const dir = mkdtempSync(join(tmpdir(), "twinport-file-lock-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("lets one holder in at a time and removes the lock afterwards, also when the action fails", async () => {
    const lock = join(dir, "serial.lock");
    let inside = 0;
    let most = 0;
    const holder = async () => {
      inside++;
      most = Math.max(most, inside);
      await sleep(30);
      inside--;
    };
    await Promise.all(Array.from({ length: 5 }, () => withFileLock(lock, holder, { retryMs: 10 })));
    assert.equal(most, 1);
    await assert.rejects(
      withFileLock(lock, async () => Promise.reject(new Error("boom"))),
      /boom/,
    );
    assert.ok(!existsSync(lock));
  });

  it("a holder slower than staleMs keeps its lock by refreshing it", async () => {
    const lock = join(dir, "refreshed.lock");
    const order: string[] = [];
    const options = { staleMs: 300, refreshMs: 50, retryMs: 20 };
    const slow = withFileLock(
      lock,
      async () => {
        order.push("slow in");
        await sleep(1_000);
        order.push("slow out");
      },
      options,
    );
    await sleep(50);
    await withFileLock(lock, async () => void order.push("next in"), options);
    await slow;
    assert.deepEqual(order, ["slow in", "slow out", "next in"]);
  });

  it("takes over a lock nobody refreshes, leaving nothing beside it", async () => {
    const lock = join(dir, "stale.lock");
    writeFileSync(lock, "gateway-2 pid 1 crashed\n");
    const longAgo = new Date(Date.now() - 10_000);
    utimesSync(lock, longAgo, longAgo);
    const started = Date.now();
    assert.equal(await withFileLock(lock, async () => "mine", { staleMs: 1_000 }), "mine");
    assert.ok(Date.now() - started < 1_000);
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.startsWith("stale")),
      [],
    );
  });
});
