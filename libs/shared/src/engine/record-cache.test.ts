import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { createMemoryRepository } from "./memory/memory-repository.ts";
import type { Repository } from "./ports/index.ts";
import { createRecordCache } from "./record-cache.ts";

/** The planning cache of value writes keeps within its entry count AND its byte budget. */
describe("record cache bounds", () => {
  let repository: Repository;
  const big = "x".repeat(20_000);

  before(async () => {
    repository = createMemoryRepository();
    const property = (value: string) => JSON.stringify({ modelType: "Property", valueType: "xs:string", value });
    const result = await repository.commit({
      preconditions: [],
      ops: [
        {
          op: "put-identifiable",
          kind: "submodel",
          id: "urn:sm",
          json: JSON.stringify({ modelType: "Submodel", id: "urn:sm" }),
        },
        ...Array.from({ length: 50 }, (_, i) => ({
          op: "put-element" as const,
          submodelId: "urn:sm",
          path: `big${i}`,
          json: property(big),
          insert: { parentPath: "", segment: `big${i}` },
        })),
        ...Array.from({ length: 50 }, (_, i) => ({
          op: "put-element" as const,
          submodelId: "urn:sm",
          path: `small${i}`,
          json: property(String(i)),
          insert: { parentPath: "", segment: `small${i}` },
        })),
      ],
      event: { kind: "submodel.created", id: "urn:sm", origin: "test", time: new Date(0).toISOString() },
    } as never);
    assert.ok(result.ok);
  });

  const read = async (cache: ReturnType<typeof createRecordCache>, paths: string[]) => {
    const view = cache.view(repository);
    for (const path of paths) await view.reads.getElements("urn:sm", [path]);
  };

  it("drops the oldest records when their bytes exceed the budget, whatever the count allows", async () => {
    const cache = createRecordCache(10_000, 400_000);
    await read(
      cache,
      Array.from({ length: 50 }, (_, i) => `big${i}`),
    );
    assert.ok(cache.bytes <= 400_000, `kept ${cache.bytes} bytes`);
    // ~20 KB each: about nineteen fit, never all fifty.
    assert.ok(cache.size >= 15 && cache.size <= 20, `kept ${cache.size} records`);
    // The newest stay: a plan for the last one read needs no store read.
    const view = cache.view(repository);
    await view.reads.getElements("urn:sm", ["big49"]);
    assert.equal(view.usedCache(), true);
    const oldest = cache.view(repository);
    await oldest.reads.getElements("urn:sm", ["big0"]);
    assert.equal(oldest.usedCache(), false);
  });

  it("keeps counting entries: small records are bounded by the count", async () => {
    const cache = createRecordCache(10, 200_000);
    await read(
      cache,
      Array.from({ length: 50 }, (_, i) => `small${i}`),
    );
    assert.equal(cache.size, 10);
    assert.ok(cache.bytes > 0 && cache.bytes < 10 * 400);
  });

  it("never keeps a record larger than a sixteenth of the budget", async () => {
    const cache = createRecordCache(10_000, 16 * 10_000);
    await read(cache, ["big0", "small0"]);
    assert.equal(cache.size, 1);
    const view = cache.view(repository);
    await view.reads.getElements("urn:sm", ["big0"]);
    assert.equal(view.usedCache(), false);
  });

  it("gives the bytes back when records are forgotten or cleared", async () => {
    const cache = createRecordCache(10_000, 1_000_000);
    await read(cache, ["big1", "big2", "small1"]);
    const before = cache.bytes;
    const view = cache.view(repository);
    await view.reads.getElements("urn:sm", ["big1"]);
    view.forget();
    assert.ok(cache.bytes < before && cache.bytes > 0);
    cache.clear();
    assert.equal(cache.bytes, 0);
    assert.equal(cache.size, 0);
  });
});
