import assert from "node:assert/strict";
import { test } from "node:test";
import { jsonSurelyLongerThan } from "./json-size.ts";

test("jsonSurelyLongerThan is true only when the JSON text is longer than the limit", () => {
  const samples: unknown[] = [
    "x".repeat(100),
    { modelType: "Blob", value: "A".repeat(300) },
    [{ a: "é\u0000\ud800".repeat(40) }, null, 1.5, true, ["b".repeat(50)]],
    { ["k".repeat(120)]: 1, nested: { deeper: { value: "v".repeat(90) } } },
    42,
    null,
  ];
  for (const sample of samples) {
    const length = JSON.stringify(sample).length;
    for (const limit of [0, 10, 100, 150, 200, 250, 301, length - 1, length, length + 1]) {
      if (jsonSurelyLongerThan(sample, limit))
        assert.ok(length > limit, `${JSON.stringify(sample).slice(0, 40)} at ${limit}`);
    }
  }
});

test("jsonSurelyLongerThan finds a long string value without writing the rest", () => {
  const element = { modelType: "Blob", idShort: "Firmware", value: "A".repeat(1_000_000) };
  assert.equal(jsonSurelyLongerThan(element, 256 * 1024), true);
  assert.equal(jsonSurelyLongerThan({ modelType: "Property", value: "12" }, 256 * 1024), false);
});
