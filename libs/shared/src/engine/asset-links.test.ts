import assert from "node:assert/strict";
import { test } from "node:test";
import { matchesAssetIds } from "./asset-links.ts";

const subject = (value: string) => ({ type: "ExternalReference", keys: [{ type: "GlobalReference", value }] });
const shell = {
  assetInformation: {
    globalAssetId: "urn:asset:1",
    specificAssetIds: [{ name: "serial", value: "R1", externalSubjectId: subject("urn:company:A") }],
  },
};

test("an assetIds filter matches name and value, and the externalSubjectId when it names one", () => {
  assert.ok(matchesAssetIds(shell, [{ name: "serial", value: "R1" }]));
  assert.ok(matchesAssetIds(shell, [{ name: "serial", value: "R1", externalSubjectId: subject("urn:company:A") }]));
  assert.ok(!matchesAssetIds(shell, [{ name: "serial", value: "R1", externalSubjectId: subject("urn:company:B") }]));
  assert.ok(
    matchesAssetIds(shell, [
      { name: "globalAssetId", value: "urn:asset:1" },
      { name: "serial", value: "R1" },
    ]),
  );
  assert.ok(
    !matchesAssetIds(shell, [{ name: "globalAssetId", value: "urn:asset:1", externalSubjectId: subject("x") }]),
  );
});
