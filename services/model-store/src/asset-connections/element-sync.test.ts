import assert from "node:assert/strict";
import { test } from "node:test";
import type { ProviderTarget } from "@twinport/shared";
import type { AssetReading } from "./asset-connection-types.ts";
import { valueOnlyBodyFromJson } from "./asset-value.ts";
import { ElementSync } from "./element-sync.ts";
import { createModelPort, type ModelPort } from "./model-port.ts";
import { startTestStore } from "./test-support/asset-connections.ts";

const SUBMODEL = "urn:test:sync";
const model = {
  submodels: [
    {
      modelType: "Submodel",
      id: SUBMODEL,
      idShort: "Sync",
      submodelElements: [{ modelType: "Property", idShort: "Rate", valueType: "xs:int", value: "1" }],
    },
  ],
};
const target: ProviderTarget = {
  submodelId: SUBMODEL,
  idShortPath: "Rate",
  keys: [
    { type: "Submodel", value: SUBMODEL },
    { type: "Property", value: "Rate" },
  ],
};
const reading = (value: number): AssetReading => ({
  key: String(value),
  bodyFor: (element) => valueOnlyBodyFromJson(element, value),
});

async function counted() {
  const store = await startTestStore(model);
  const port = createModelPort(store.store);
  const calls = { reads: 0, patches: 0 };
  const counting: ModelPort = {
    read: (t) => (calls.reads++, port.read(t)),
    patchValue: (t, body) => (calls.patches++, port.patchValue(t, body)),
  };
  return { store, calls, sync: new ElementSync(counting, () => undefined) };
}

test("a Property's readings after the first are compared with the value this process knows: one commit each, no read", async () => {
  const { store, calls, sync } = await counted();
  try {
    assert.equal(
      await sync.apply(target, "s", reading(1), sync.stamp(target)),
      "unchanged",
      "the model holds 1 already",
    );
    assert.deepEqual(calls, { reads: 1, patches: 0 });
    assert.equal(await sync.apply(target, "s", reading(2), sync.stamp(target)), "applied");
    assert.equal(await sync.apply(target, "s", reading(3), sync.stamp(target)), "applied");
    assert.equal(
      await sync.apply(target, "other", reading(3), sync.stamp(target)),
      "unchanged",
      "another source with the value the model holds",
    );
    assert.deepEqual(calls, { reads: 1, patches: 2 });
    assert.equal((await store.element(SUBMODEL, "Rate")).value, "3");
    assert.equal(store.events.filter((e) => e.kind === "element.value-changed").length, 2);
  } finally {
    await store.close();
  }
});

test("a change made elsewhere makes the next reading read the element again", async () => {
  const { store, calls, sync } = await counted();
  try {
    await sync.apply(target, "s", reading(2), sync.stamp(target));
    const patched = await store.store.execute({
      type: "PatchSubmodelElementValueByPath",
      params: { submodelId: SUBMODEL, idShortPath: "Rate", body: '"7"' },
    });
    assert.ok(patched.ok);
    await sync.modelChanged(target, await store.element(SUBMODEL, "Rate"));
    assert.equal(
      await sync.apply(target, "s", reading(7), sync.stamp(target)),
      "unchanged",
      "the model holds 7 now: no write",
    );
    assert.equal(await sync.apply(target, "s", reading(2), sync.stamp(target)), "applied");
    assert.deepEqual(calls, { reads: 2, patches: 2 });
    assert.equal((await store.element(SUBMODEL, "Rate")).value, "2");
  } finally {
    await store.close();
  }
});

test("a known Property that was deleted meanwhile is reported missing, and read again next time", async () => {
  const { store, calls, sync } = await counted();
  try {
    await sync.apply(target, "s", reading(2), sync.stamp(target));
    const deleted = await store.store.execute({
      type: "DeleteSubmodelElementByPath",
      params: { submodelId: SUBMODEL, idShortPath: "Rate" },
    });
    assert.ok(deleted.ok);
    // No modelChanged here: as if the event had been missed.
    assert.equal(await sync.apply(target, "s", reading(3), sync.stamp(target)), "missing");
    assert.equal(await sync.apply(target, "s", reading(4), sync.stamp(target)), "missing");
    assert.deepEqual(calls, { reads: 2, patches: 2 });
  } finally {
    await store.close();
  }
});

test("a reading taken while a write to the asset was on its way is stale once the write settled", async () => {
  const { store, sync } = await counted();
  try {
    const patched = await store.store.execute({
      type: "PatchSubmodelElementValueByPath",
      params: { submodelId: SUBMODEL, idShortPath: "Rate", body: '"7"' },
    });
    assert.ok(patched.ok);
    let arrived!: () => void;
    const atAsset = new Promise<void>((resolve) => (arrived = resolve));
    const written = sync.modelChanged(target, await store.element(SUBMODEL, "Rate"), () => atAsset);
    // The asset is read while the write has not arrived yet: it still answers its old value.
    const stamp = sync.stamp(target);
    arrived();
    assert.equal(await written, "written");
    assert.equal(await sync.apply(target, "s", reading(1), stamp), "stale", "the asset's value from before the write");
    assert.equal((await store.element(SUBMODEL, "Rate")).value, "7", "the client's write stays");
    assert.equal(await sync.apply(target, "s", reading(7), sync.stamp(target)), "unchanged", "a reading after it");
  } finally {
    await store.close();
  }
});
