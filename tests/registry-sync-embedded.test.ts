// Registry synchronization, embedded mode: the one process registers with two AAS registries and
// one submodel registry (tests/test-support/registry-server, validating against the v3.0.1 schemas).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import {
  assertNoShellRegistered,
  EXTERNAL_HOST,
  type Fleet,
  startFleet,
  waitFor,
} from "./test-support/registry-server/registry-fleet.ts";
import { startRegistryServer } from "./test-support/registry-server/registry-server.ts";
import { registrySyncSuite, SHELL1, STALE_SHELL1 } from "./test-support/registry-server/registry-sync-suite.ts";
import { type SystemUnderTest, startSystem } from "./test-support/system.ts";

let fleet: Fleet;
let system: SystemUnderTest;

before(async () => {
  fleet = await startFleet();
  fleet.aas1.shells.set(SHELL1, structuredClone(STALE_SHELL1));
  system = await startSystem("embedded", { endpoints: [{ hostname: EXTERNAL_HOST }], config: { core: fleet.core } });
});
after(async () => {
  await system?.stop();
  await fleet?.stop();
});

describe("registry synchronization (embedded)", () => {
  registrySyncSuite({
    get fleet() {
      return fleet;
    },
    client: () => system.clients[0]!,
    port: () => Number(new URL(system.clients[0]!.baseUrl).port),
    stopRegistering: async () => {
      await system.processes[0]!.stop();
    },
  });
});

describe("registry synchronization (embedded): a registry down at start, descriptors kept on shutdown", () => {
  test("registered once the registry comes up; unregisterOnShutdown false leaves them there", async () => {
    const registry = await startRegistryServer();
    await registry.stop(); // its port stays reserved for the restart below
    let lateSystem: SystemUnderTest | undefined;
    try {
      lateSystem = await startSystem("embedded", {
        endpoints: [{ hostname: EXTERNAL_HOST }],
        config: {
          core: {
            aasRegistries: [registry.url],
            submodelRegistries: [registry.url],
            registrySynchronization: { retryMinDelay: 100, retryMaxDelay: 400, unregisterOnShutdown: false },
          },
        },
      });
      // The process is up and serving while the registry is down.
      assert.equal((await lateSystem.clients[0]!.get("/shells")).status, 200);
      await registry.start();
      await waitFor(
        "registered after the registry came up",
        () => registry.shells.size === 3 && registry.submodels.size === 6,
      );
      assert.ok(registry.requests.every((r) => r.status !== 400));
      await lateSystem.processes[0]!.stop();
      assert.equal(registry.shells.size, 3);
      assert.equal(registry.requests.filter((r) => r.method === "DELETE").length, 0);
    } finally {
      await lateSystem?.stop();
      await registry.stop();
    }
  });
});

describe("registry synchronization (embedded): no HTTP endpoint serves the AAS API", () => {
  test("shells are not registered (an AAS descriptor without endpoints reaches nothing), submodels are, and the log says why", async () => {
    const registry = await startRegistryServer();
    let submodelsOnly: SystemUnderTest | undefined;
    try {
      submodelsOnly = await startSystem("embedded", {
        endpoints: [{ hostname: EXTERNAL_HOST, profiles: ["SUBMODEL_REPOSITORY_FULL"] }],
        config: { core: { aasRegistries: [registry.url], submodelRegistries: [registry.url] } },
      });
      await waitFor("submodels registered", () => registry.submodels.size === 6);
      assertNoShellRegistered(registry, readFileSync(submodelsOnly.processes[0]!.logFile, "utf8"));
    } finally {
      await submodelsOnly?.stop();
      await registry.stop();
    }
  });
});
