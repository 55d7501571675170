import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createRenderedSubmodels } from "./rendered-submodels.ts";

// The model-store's cache of assembled submodels stays within its budget, counting the parsed value
// it keeps beside the text (issue 19 item 5).
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const settledHeap = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
};
/** A submodel as the engine assembles it: `count` xs:int Properties (~24 characters of JSON each). */
const assembled = (n: number, count: number) =>
  JSON.parse(
    JSON.stringify({
      modelType: "Submodel",
      id: `urn:test:rendered:${n}`,
      idShort: "S",
      submodelElements: Array.from({ length: count }, (_, i) => ({
        modelType: "Property",
        idShort: `P${i}`,
        valueType: "xs:int",
        value: String(n + i),
      })),
    }),
  ) as unknown;

describe("rendered submodels: footprint within the budget", () => {
  it("many submodels beyond the budget: accounted bytes ≤ budget, index bounded, heap no more than accounted", () => {
    const budget = 16 * 1024 * 1024;
    const cache = createRenderedSubmodels(budget);
    const empty = settledHeap();
    for (let n = 0; n < 3_000; n++) {
      cache.set(`urn:test:rendered:${n}`, 1, undefined, assembled(n, 300));
      assert.ok(cache.bytes <= budget, `${cache.bytes} bytes accounted after ${n + 1} submodels`);
      assert.ok(cache.indexed <= cache.entries * 4 + 1_001, `${cache.indexed} index rows, ${cache.entries} entries`);
    }
    const full = settledHeap();
    assert.ok(cache.entries > 100 && cache.entries < 3_000, `${cache.entries} entries kept`);
    assert.ok(full - empty <= cache.bytes, `heap grew ${full - empty} bytes, the cache accounts for ${cache.bytes}`);
    // Entries are served until evicted, and a newer revision replaces the older one.
    const last = 2_999;
    assert.ok(cache.get(`urn:test:rendered:${last}`, 1, undefined) !== undefined);
    cache.set(`urn:test:rendered:${last}`, 2, undefined, assembled(last, 300));
    assert.equal(cache.get(`urn:test:rendered:${last}`, 1, undefined), undefined);
    assert.ok(cache.get(`urn:test:rendered:${last}`, 2, undefined) !== undefined);
  });
});
