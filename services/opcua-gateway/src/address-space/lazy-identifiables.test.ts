import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadConfig, type OpcUaEndpointConfig } from "@twinport/shared";
import { LazyIdentifiables } from "./lazy-identifiables.ts";

// The bookkeeping behind lazy nodes (ADR 0036) on a clock of its own; the black-box behaviour is in
// tests/opcua-lazy-*.test.ts and sync/lazy-resync.test.ts.

function lazyAt(releaseAfterMs: number) {
  const clock = { now: 0 };
  const made: string[] = [];
  const lazy = new LazyIdentifiables({ releaseAfterMs, now: () => clock.now });
  lazy.start({
    async materialize(id) {
      // As through the sync's queue: made in a later turn.
      await new Promise((resolve) => setImmediate(resolve));
      made.push(id);
      lazy.markMaterialized(id, true);
    },
    async release() {},
  });
  return { lazy, clock, made };
}

test("a known identifiable is made once however many requests ask together; unknown ids make nothing", async () => {
  const { lazy, made } = lazyAt(1000);
  lazy.set("sm", "submodel");
  const first = lazy.touch("sm");
  const second = lazy.touch("sm");
  assert.ok(first !== undefined && second !== undefined);
  await Promise.all([first, second]);
  assert.deepEqual(made, ["sm"]);
  assert.equal(lazy.touch("sm"), undefined, "made: served at once");
  assert.equal(lazy.touch("unknown"), undefined);
  lazy.stop();
});

test("released only after the idle time, never while pinned by a monitored item, never with 0", async () => {
  const { lazy, clock } = lazyAt(1000);
  lazy.set("a", "submodel");
  lazy.set("b", "shell");
  await lazy.touch("a");
  await lazy.touch("b");
  clock.now = 999;
  assert.deepEqual(lazy.releasable(), []);
  lazy.touch("b"); // used again: its idle time starts over
  lazy.pin("a");
  clock.now = 1500;
  assert.deepEqual(lazy.releasable(), []);
  lazy.unpin("a");
  assert.deepEqual(lazy.releasable(), ["a"]);
  clock.now = 2000;
  assert.deepEqual(lazy.releasable().sort(), ["a", "b"]);
  lazy.forget("a");
  assert.deepEqual(lazy.releasable(), ["b"]);
  lazy.stop();

  const never = lazyAt(0);
  never.lazy.set("c", "concept-description");
  await never.lazy.touch("c");
  never.clock.now = 1e12;
  assert.deepEqual(never.lazy.releasable(), []);
  never.lazy.stop();
});

test("releaseUnusedNodesAfterMs: default 5 minutes, 0 allowed, negative or fractional refused", () => {
  const endpoint = (overrides: string[]) =>
    loadConfig({ role: "opcua-gateway", endpointKinds: ["opcua"], overrides }).config
      .endpoints[0] as OpcUaEndpointConfig;
  assert.equal(endpoint([]).releaseUnusedNodesAfterMs, 300_000);
  assert.equal(endpoint(["endpoints[0].releaseUnusedNodesAfterMs=0"]).releaseUnusedNodesAfterMs, 0);
  for (const value of ["-1", "1.5", "soon"])
    assert.throws(
      () => endpoint([`endpoints[0].releaseUnusedNodesAfterMs=${value}`]),
      (error: unknown) => error instanceof ConfigError && /releaseUnusedNodesAfterMs/.test(error.message),
      value,
    );
});
