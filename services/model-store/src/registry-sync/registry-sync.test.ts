import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { isHttpEndpoint, validateConfig } from "@twinport/shared";
import { waitFor } from "../../../../tests/test-support/registry-server/registry-fleet.ts";
import {
  type RegistryServer,
  startRegistryServer,
} from "../../../../tests/test-support/registry-server/registry-server.ts";
import type { ConnectionLease } from "../asset-connections/connection-lease.ts";
import { startTestStore, type TestStore } from "../asset-connections/test-support/asset-connections.ts";
import { startRegistrySync } from "./registry-sync.ts";

let registry: RegistryServer;
let testStore: TestStore;
const lines: string[] = [];

const SHELL = "urn:test:shell";
const SMALL = "urn:test:sm:small";
const BIG = "urn:test:sm:big";
const reference = (id: string) => ({ type: "ModelReference", keys: [{ type: "Submodel", value: id }] });
const MODEL = {
  assetAdministrationShells: [
    {
      modelType: "AssetAdministrationShell",
      id: SHELL,
      idShort: "Shell",
      assetInformation: { assetKind: "Instance", globalAssetId: "urn:test:asset" },
      submodels: [reference(SMALL), reference(BIG)],
    },
  ],
  submodels: [{ modelType: "Submodel", id: SMALL, idShort: "Small" }],
};

before(async () => {
  registry = await startRegistryServer();
  testStore = await startTestStore(MODEL);
});
after(async () => {
  await testStore?.close();
  await registry?.stop();
});

// The sections a file would get from the embedded role's defaults.
const BASE = {
  persistence: { "@class": "persistence.memory.PersistenceInMemory" },
  messageBus: { "@class": "messagebus.internal.MessageBusInternal" },
  fileStorage: { "@class": "filestorage.memory.FileStorageInMemory" },
};

function sync(lease?: ConnectionLease, unregisterOnShutdown = true) {
  const { core, endpoints } = validateConfig({
    ...BASE,
    core: {
      aasRegistries: [registry.url],
      submodelRegistries: [registry.url],
      registrySynchronization: { retryMinDelay: 50, retryMaxDelay: 200, unregisterOnShutdown },
    },
    endpoints: [{ "@class": "endpoint.http.HttpEndpoint", hostname: "twin.example.com", port: 8443 }],
  });
  const running = startRegistrySync({
    core,
    httpEndpoints: endpoints.filter(isHttpEndpoint),
    store: testStore.store,
    bus: testStore.bus,
    ...(lease ? { lease } : {}),
    log: (line) => lines.push(line),
  });
  assert.ok(running);
  return running;
}

describe("registry sync job", () => {
  test("no registries configured: nothing starts", () => {
    const { core } = validateConfig({ ...BASE, endpoints: [] });
    assert.equal(
      startRegistrySync({ core, httpEndpoints: [], store: testStore.store, bus: testStore.bus, log: () => {} }),
      undefined,
    );
  });

  test("a submodel whose event leaves the payload out (too large) is read from the store and nested", async () => {
    const running = sync();
    try {
      assert.deepEqual(running.advertised, ["https://twin.example.com:8443/api/v3.0"]);
      await waitFor("registered", () => registry.shells.has(SHELL) && registry.submodels.has(SMALL));
      const big = {
        modelType: "Submodel",
        id: BIG,
        idShort: "Big",
        submodelElements: [
          { modelType: "Property", idShort: "Text", valueType: "xs:string", value: "x".repeat(300_000) },
        ],
      };
      const posted = await testStore.store.execute({ type: "PostSubmodel", params: { body: JSON.stringify(big) } });
      assert.ok(posted.ok);
      assert.ok(
        testStore.events.some((e) => e.kind === "submodel.created" && e.id === BIG && e.payloadOmitted),
        "the event really left the payload out",
      );
      await waitFor(
        "big submodel registered and nested",
        () =>
          registry.submodels.has(BIG) &&
          (registry.shells.get(SHELL)?.submodelDescriptors as unknown[] | undefined)?.length === 2,
      );
      assert.equal(registry.submodels.get(BIG)!.idShort, "Big");
      assert.equal("submodelElements" in registry.submodels.get(BIG)!, false);
    } finally {
      await running.stop();
    }
    assert.equal(registry.shells.size + registry.submodels.size, 0, "unregistered on stop");
  });

  test("only while the lease is held: losing it stops without unregistering, regaining it registers again by the upsert rule", async () => {
    registry.clear();
    let held = false;
    let asked = 0;
    const lease: ConnectionLease = {
      ttlMs: 150,
      acquire: async () => (asked++, held),
      release: async () => {},
    };
    const running = sync(lease, false);
    try {
      await waitFor("a few lease checks", () => asked >= 3);
      assert.equal(registry.requests.length, 0, "nothing sent without the lease");
      assert.equal(running.active(), false);
      held = true;
      await waitFor("registered", () => registry.shells.has(SHELL) && registry.submodels.size === 2);
      held = false;
      await waitFor("stepped back", () => !running.active());
      const sent = registry.requests.length;
      const renamed = await testStore.store.execute({
        type: "PutSubmodelById",
        params: { submodelId: SMALL, body: JSON.stringify({ modelType: "Submodel", id: SMALL, idShort: "Renamed" }) },
      });
      assert.ok(renamed.ok);
      const checks = asked;
      await waitFor("two more lease checks", () => asked >= checks + 2);
      assert.equal(registry.requests.length, sent, "no request from a process without the lease");
      assert.equal(registry.shells.size, 1, "losing the lease unregisters nothing");
      held = true;
      await waitFor(
        "the change registered by the new term",
        () => registry.submodels.get(SMALL)?.idShort === "Renamed",
      );
      const again = registry.requests.slice(sent);
      assert.ok(
        again.every((r) => r.status !== 201),
        "everything still existed: 409 then PUT, never a second create",
      );
      assert.ok(again.some((r) => r.method === "POST" && r.status === 409));
    } finally {
      await running.stop();
    }
    assert.equal(registry.shells.size, 1, "unregisterOnShutdown false");
  });
});
