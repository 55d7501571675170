// Registry synchronization, embedded mode: the one process registers with two AAS registries and
// one submodel registry (tests/support/registry-server, validating against the v3.0.1 schemas).
import { after, before, describe } from "node:test";
import { startFleet, EXTERNAL_HOST, type Fleet } from "./support/registry-server/registry-fleet.ts";
import { registrySyncSuite, SHELL1, STALE_SHELL1 } from "./support/registry-server/registry-sync-suite.ts";
import { startSystem, type SystemUnderTest } from "./support/system.ts";

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
