import assert from "node:assert/strict";
import { test } from "node:test";
import { CommandError } from "../contracts/index.ts";
import { readBringingNoViolation } from "./violations-brought.ts";

const SHELL = "AssetAdministrationShell" as const;
const reference = (id: string) => ({ type: "ModelReference", keys: [{ type: "Submodel", value: id }] });
const valid = {
  modelType: "AssetAdministrationShell",
  id: "urn:shell",
  assetInformation: { assetKind: "Instance", globalAssetId: "urn:asset" },
};
// What DELETE /lookup/shells/{id} leaves (ADR 0007): no asset named, against AASd-131.
const unlinked = { ...valid, assetInformation: { assetKind: "Instance" } };

const refusedFor = (constraint: RegExp) => (error: unknown) =>
  error instanceof CommandError && error.code === "validation" && constraint.test(error.message);

test("a write that keeps a violation the stored object had is taken", () => {
  const next = { ...unlinked, submodels: [reference("urn:sm")] };
  assert.deepEqual(readBringingNoViolation(unlinked, next, SHELL), next);
});

test("a write that brings a violation is refused, whatever the stored object had", () => {
  // An idShort that is no name (AASd-002), a violation of its own.
  const bringing = { ...unlinked, idShort: "1 not a name" };
  assert.throws(() => readBringingNoViolation(unlinked, bringing, SHELL), refusedFor(/idShort/));
  assert.throws(() => readBringingNoViolation(valid, unlinked, SHELL), refusedFor(/AASd-131/));
});

test("an object that is not even readable is refused as such, not as a violation", () => {
  assert.throws(
    () => readBringingNoViolation(unlinked, { ...unlinked, assetInformation: "none" }, SHELL),
    (error: unknown) => error instanceof CommandError && error.code === "bad-request",
  );
});
