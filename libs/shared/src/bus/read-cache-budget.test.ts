import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { Command } from "../contracts/index.ts";
import { createEngine, type Engine } from "../engine/create-engine.ts";
import { createDirectStoreClient } from "../engine/memory/direct-store-client.ts";
import { createInProcessEventBus } from "../engine/memory/in-process-event-bus.ts";
import { createMemoryRepository } from "../engine/memory/memory-repository.ts";
import type { EventBus } from "../engine/ports/index.ts";
import { type CachingStoreClient, createCachingStoreClient } from "./read-cache.ts";

// The read cache's whole footprint stays within `maxBytes` (issue 19 item 5): many distinct keys
// and tags, far beyond the budget, through the embedded mode's engine, bus and store client.
const SUBMODELS = 2_000;
const PROPERTIES = 10;
const RAW = { rawValue: true } as const;
const submodelId = (n: number) => `urn:test:budget:submodel:${n}`;
const readProperty = (n: number, p: number): Command<"GetSubmodelElementByPath"> => ({
  type: "GetSubmodelElementByPath",
  params: { submodelId: submodelId(n), idShortPath: `P${p}`, modifiers: { content: "value" } },
});
const readSubmodel = (n: number): Command<"GetSubmodelById"> => ({
  type: "GetSubmodelById",
  params: { submodelId: submodelId(n) },
});

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const settledHeap = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
};

describe("read cache budget: entries and bookkeeping together stay within maxBytes", () => {
  let bus: EventBus;
  let engine: Engine;
  const caches: CachingStoreClient[] = [];
  const cachingClient = async (maxBytes: number) => {
    const cache = await createCachingStoreClient(createDirectStoreClient(engine), {
      bus,
      maxAgeMs: 600_000,
      maxBytes,
    });
    caches.push(cache);
    return cache;
  };

  before(async () => {
    bus = createInProcessEventBus();
    engine = createEngine({ repository: createMemoryRepository(), bus, validation: false });
    for (let n = 0; n < SUBMODELS; n++) {
      const submodelElements = Array.from({ length: PROPERTIES }, (_, p) => ({
        modelType: "Property",
        idShort: `P${p}`,
        valueType: "xs:int",
        value: String(p),
      }));
      const created = await engine.execute({
        type: "PostSubmodel",
        params: { body: JSON.stringify({ modelType: "Submodel", id: submodelId(n), idShort: "S", submodelElements }) },
      });
      assert.ok(created.ok, JSON.stringify(created));
    }
  });
  after(async () => {
    for (const cache of caches) await cache.close();
    await engine.close();
    await bus.close();
  });

  it("a 1 MiB cache read through thousands of keys and tags keeps its accounted bytes and maps bounded", async () => {
    const budget = 1024 * 1024;
    const cache = await cachingClient(budget);
    let most = { bytes: 0, entries: 0, tags: 0, generations: 0 };
    for (let n = 0; n < SUBMODELS; n++) {
      for (const command of [readSubmodel(n), readProperty(n, n % PROPERTIES)]) {
        const reply = await cache.execute(command, RAW);
        assert.ok(reply.ok, JSON.stringify(reply));
        const { bytes, entries, tags, generations } = cache.stats();
        most = {
          bytes: Math.max(most.bytes, bytes),
          entries: Math.max(most.entries, entries),
          tags: Math.max(most.tags, tags),
          generations: Math.max(most.generations, generations),
        };
      }
    }
    const stats = cache.stats();
    assert.equal(stats.misses, SUBMODELS * 2, "every read was a distinct key");
    assert.ok(most.bytes <= budget, `accounted ${most.bytes} bytes, budget ${budget}`);
    assert.ok(stats.bytes > budget / 2, `the cache is in use (${stats.bytes} bytes)`);
    // Each entry carries one tag of its own submodel: the index holds no tag without an entry.
    assert.ok(stats.entries < SUBMODELS, `evicted: ${stats.entries} of ${SUBMODELS * 2} answers kept`);
    assert.ok(stats.tags <= stats.entries, `${stats.tags} tags for ${stats.entries} entries`);
    assert.ok(most.tags <= most.entries + 1, `at most ${most.tags} tags for ${most.entries} entries`);
    // Generations are kept for reads on their way only: none once idle, one read's at most meanwhile.
    assert.equal(stats.generations, 0);
    assert.ok(most.generations <= 2);

    // Writes to every submodel invalidate; bookkeeping of what is gone goes with it.
    for (let n = 0; n < SUBMODELS; n++) {
      const written = await cache.execute({
        type: "PatchSubmodelElementValueByPath",
        params: { submodelId: submodelId(n), idShortPath: "P0", body: "42" },
        origin: "http",
      });
      assert.ok(written.ok, JSON.stringify(written));
    }
    const emptied = cache.stats();
    assert.equal(emptied.entries, 0);
    assert.equal(emptied.bytes, 0);
    assert.equal(emptied.tags, 0);
    assert.equal(emptied.generations, 0);
  });

  it("what the cache holds in the heap is no more than it accounts for", async () => {
    // Tiny answers under distinct keys and tags: the bookkeeping, not the text, is the footprint.
    const budget = 8 * 1024 * 1024;
    const cache = await cachingClient(budget);
    for (let n = 0; n < SUBMODELS; n++) await cache.execute(readSubmodel(n), RAW); // warm the engine
    const empty = settledHeap();
    for (let p = 0; p < PROPERTIES; p++)
      for (let n = 0; n < SUBMODELS; n++) assert.ok((await cache.execute(readProperty(n, p), RAW)).ok);
    const full = settledHeap();
    const { bytes, entries, tags } = cache.stats();
    const grown = full - empty;
    console.log(
      `read cache: ${entries} entries, ${tags} tags, accounted ${bytes} bytes, heap grew ${grown} bytes (${(grown / entries).toFixed(0)} per entry, accounted ${(bytes / entries).toFixed(0)})`,
    );
    assert.ok(bytes <= budget);
    assert.ok(entries > 5_000, `${entries} entries`);
    // The submodel answers of the warm-up were evicted meanwhile, which frees some heap too.
    assert.ok(grown <= bytes, `heap grew ${grown} bytes, the cache accounts for ${bytes}`);
  });
});
