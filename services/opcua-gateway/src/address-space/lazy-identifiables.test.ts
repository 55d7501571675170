import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadConfig, type OpcUaEndpointConfig } from "@twinport/shared";
import { LazyIdentifiables, RELEASE_BATCH_ELEMENTS } from "./lazy-identifiables.ts";

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

test("makeRoom: least recently used first, never the one made, a pinned or a held one; warns once a minute", () => {
  const clock = { now: 0 };
  const warnings: string[] = [];
  const lazy = new LazyIdentifiables({
    releaseAfterMs: 0,
    maxElements: 10,
    warn: (line) => warnings.push(line),
    now: () => clock.now,
  });
  for (const id of ["a", "b", "c", "d"]) {
    lazy.set(id, "submodel");
    lazy.markMaterialized(id, true, 3);
  }
  assert.equal(lazy.materializedElements, 12);
  assert.equal(lazy.touch("a"), undefined); // used: now the most recent
  // 12 + 4 - 10 = 6 too many: b and c, the least recently used.
  assert.deepEqual(lazy.makeRoom("e", 4), ["b", "c"]);
  lazy.pin("b");
  lazy.hold(["c"]);
  assert.deepEqual(lazy.makeRoom("e", 4), ["d", "a"]);
  assert.deepEqual(lazy.makeRoom("d", 4), ["a"], "never the one being made");
  assert.deepEqual(warnings.length, 1, "d alone cannot make room: the rest is watched or held");
  assert.match(warnings[0]!, /maxMaterializedElements=10/);
  lazy.makeRoom("d", 4);
  assert.equal(warnings.length, 1, "at most once a minute");
  clock.now = 60_000;
  lazy.makeRoom("d", 4);
  assert.equal(warnings.length, 2);
  lazy.unpin("b");
  lazy.unhold(["c"]);
  assert.deepEqual(lazy.makeRoom("e", 4), ["b", "c"]);
  // Released and recounted: the count follows.
  lazy.markMaterialized("b", false);
  lazy.recount("c", 1);
  assert.equal(lazy.materializedElements, 7);
  lazy.forget("c");
  assert.equal(lazy.materializedElements, 6);
  assert.deepEqual(lazy.makeRoom("e", 4), [], "fits");
  assert.deepEqual(new LazyIdentifiables({ releaseAfterMs: 0, maxElements: 0 }).makeRoom("x", 1e9), [], "0: no bound");
});

test("maxMaterializedElements: default 100,000, 0 allowed, negative or fractional refused", () => {
  const endpoint = (overrides: string[]) =>
    loadConfig({ role: "opcua-gateway", endpointKinds: ["opcua"], overrides }).config
      .endpoints[0] as OpcUaEndpointConfig;
  assert.equal(endpoint([]).maxMaterializedElements, 100_000);
  assert.equal(endpoint(["endpoints[0].maxMaterializedElements=0"]).maxMaterializedElements, 0);
  for (const value of ["-1", "1.5", "many"])
    assert.throws(
      () => endpoint([`endpoints[0].maxMaterializedElements=${value}`]),
      (error: unknown) => error instanceof ConfigError && /maxMaterializedElements/.test(error.message),
      value,
    );
});

test("the idle sweep releases everything idle, in batches of at most RELEASE_BATCH_ELEMENTS elements with a turn of the loop between them", async () => {
  const clock = { now: 0 };
  // releaseAfterMs 100: the sweeper runs every 25 ms of real time; the idle time runs on `clock`.
  const lazy = new LazyIdentifiables({ releaseAfterMs: 100, now: () => clock.now });
  const batches: string[][] = [];
  /** Whether the loop turned (a setImmediate ran) since the previous batch started. */
  const turnedBefore: boolean[] = [];
  let turned = true;
  let done: () => void = () => {};
  const allReleased = new Promise<void>((resolve) => {
    done = resolve;
  });
  lazy.start({
    async materialize() {},
    async release(ids) {
      turnedBefore.push(turned);
      turned = false;
      setImmediate(() => {
        turned = true;
      });
      batches.push(ids);
      // As releaseIdentifiable does: asks again, then deletes and marks.
      for (const id of ids) if (lazy.isReleasable(id)) lazy.markMaterialized(id, false);
      if (lazy.materializedCount === 1) done(); // only the pinned one is left
    },
  });
  const sizes: Record<string, number> = { big: RELEASE_BATCH_ELEMENTS * 3 };
  for (let i = 0; i < 10; i++) sizes[`sm${i}`] = RELEASE_BATCH_ELEMENTS / 4;
  sizes.watched = 10;
  for (const [id, elements] of Object.entries(sizes)) {
    lazy.set(id, "submodel");
    lazy.markMaterialized(id, true, elements);
  }
  lazy.pin("watched");
  clock.now = 1000;
  await allReleased;
  lazy.stop();

  assert.deepEqual(
    batches.flat().sort(),
    Object.keys(sizes)
      .filter((id) => id !== "watched")
      .sort(),
    "all idle ones, once",
  );
  for (const batch of batches) {
    const elements = batch.reduce((sum, id) => sum + sizes[id]!, 0);
    assert.ok(
      batch.length === 1 || elements <= RELEASE_BATCH_ELEMENTS,
      `batch ${batch.join(",")}: ${elements} elements`,
    );
  }
  // The big one alone, then 10 × a quarter batch in batches of 4, 4, 2 (least recently used first:
  // the order they were made).
  assert.deepEqual(
    batches.map((b) => b.length),
    [1, 4, 4, 2],
  );
  assert.ok(turnedBefore.every(Boolean), "every batch after a turn of the event loop (requests and events go first)");
  assert.equal(lazy.materializedElements, 10, "the watched one stays");
});
