// Registry synchronization, distributed mode: two model-store replicas (one registry-sync lease in
// Redis) and an http-gateway; the same scenarios as embedded, plus one registration per descriptor
// across replicas and a takeover after kill -9 of the lease holder.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createHttpClient, type HttpClient } from "./test-support/http-client.ts";
import {
  assertNoShellRegistered,
  b64,
  EXTERNAL_HOST,
  type Fleet,
  requestsFor,
  startFleet,
  waitFor,
} from "./test-support/registry-server/registry-fleet.ts";
import { startRegistryServer } from "./test-support/registry-server/registry-server.ts";
import { registrySyncSuite, SHELL1, STALE_SHELL1 } from "./test-support/registry-server/registry-sync-suite.ts";
import { freePort, type RunningServer, startNats, startRedis } from "./test-support/servers.ts";
import { EXAMPLE_MODEL, findCertificate, startTwinport, type TwinportProcess } from "./test-support/system.ts";

let fleet: Fleet;
let redis: RunningServer;
let nats: RunningServer;
let client: HttpClient;
let port: number;
const stores: TwinportProcess[] = [];
const processes: TwinportProcess[] = [];
const dirs: string[] = [];

const registering = (store: TwinportProcess) =>
  readFileSync(store.logFile, "utf8").includes("registry-sync: registering");
const alive = (p: TwinportProcess) => p.child.exitCode === null && p.child.signalCode === null;

before(async () => {
  fleet = await startFleet();
  fleet.aas1.shells.set(SHELL1, structuredClone(STALE_SHELL1));
  redis = await startRedis();
  nats = await startNats();
  port = await freePort();
  const config = JSON.stringify({
    core: fleet.core,
    endpoints: [
      { "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: true, hostname: EXTERNAL_HOST },
    ],
  });
  const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
  const start = async (role: "model-store" | "http-gateway", args: string[]) => {
    const cwd = mkdtempSync(join(tmpdir(), `twinport-${role}-`));
    dirs.push(cwd);
    writeFileSync(join(cwd, "config.json"), config);
    const proc = await startTwinport({ role, cwd, args: ["-c", "config.json", ...args], env });
    processes.push(proc);
    return { proc, cwd };
  };
  // Started together, like replicas of one Deployment.
  const [a, b] = await Promise.all([
    start("model-store", ["-m", EXAMPLE_MODEL]),
    start("model-store", ["-m", EXAMPLE_MODEL]),
  ]);
  stores.push(a.proc, b.proc);
  const gateway = await start("http-gateway", []);
  client = createHttpClient(`https://127.0.0.1:${port}/api/v3.0`, { ca: findCertificate(gateway.cwd) });
});

after(async () => {
  client?.close();
  await Promise.all(processes.map((p) => p.stop()));
  await redis?.stop();
  await nats?.stop();
  await fleet?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("registry synchronization (distributed, two model-stores)", () => {
  registrySyncSuite({
    get fleet() {
      return fleet;
    },
    client: () => client,
    port: () => port,
    // The replica without the lease first (it unregisters nothing), then the holder.
    stopRegistering: async () => {
      for (const store of [...stores.filter((s) => !registering(s)), ...stores.filter(registering)]) await store.stop();
    },
    afterStartUp({ shells, inSync }) {
      test("one replica registers: one lease holder, no second round of POSTs", () => {
        assert.equal(stores.filter(registering).length, 1, "exactly one model-store logs that it registers");
        for (const registry of [fleet.aas1, fleet.aas2]) {
          for (const { id } of shells)
            assert.equal(
              requestsFor(registry, id).filter((r) => r.method === "POST").length,
              1,
              `${id} in ${registry.url}`,
            );
        }
      });

      test("kill -9 of the lease holder: the other replica takes over and keeps the registries current", async () => {
        const holder = stores.find(registering)!;
        const other = stores.find((s) => s !== holder)!;
        const before = fleet.aas2.requests.length;
        holder.child.kill("SIGKILL");
        await waitFor("the holder is gone", () => !alive(holder));
        stores.splice(stores.indexOf(holder), 1);
        await waitFor("the other replica took the lease", () => registering(other), 15_000);
        const SHELL = "urn:test:registry-sync:after-takeover";
        const answer = await client.request("POST", "/shells", {
          body: JSON.stringify({
            modelType: "AssetAdministrationShell",
            id: SHELL,
            idShort: "AfterTakeover",
            assetInformation: { assetKind: "Instance", globalAssetId: "urn:a" },
          }),
        });
        assert.equal(answer.status, 201, answer.text);
        shells.push({ id: SHELL, submodels: [] });
        await waitFor("the new shell registered by the new holder", () => inSync() && fleet.aas2.shells.has(SHELL));
        // The takeover registers everything once more by the upsert rule: POST, 409, PUT; never a second 201.
        const takeover = fleet.aas2.requests.slice(before);
        for (const { id } of shells.filter((s) => s.id !== SHELL)) {
          assert.deepEqual(
            takeover
              .filter((r) => r.path.includes(b64(id)) || (r.body as { id?: string } | undefined)?.id === id)
              .map((r) => `${r.method} ${r.status}`),
            ["POST 409", "PUT 204"],
            id,
          );
        }
      });
    },
  });
});

describe("registry synchronization (distributed): no HTTP endpoint serves the AAS API", () => {
  test("the model-store registers no shell (an AAS descriptor without endpoints reaches nothing), only submodels, and logs why", async () => {
    const registry = await startRegistryServer();
    // A Redis and NATS of its own: the suite's model-stores must not see this model-store's events.
    const ownRedis = await startRedis();
    const ownNats = await startNats();
    const cwd = mkdtempSync(join(tmpdir(), "twinport-model-store-"));
    let store: TwinportProcess | undefined;
    try {
      // The model-store builds the descriptors from the same endpoints the http-gateways read.
      writeFileSync(
        join(cwd, "config.json"),
        JSON.stringify({
          core: { aasRegistries: [registry.url], submodelRegistries: [registry.url] },
          endpoints: [
            {
              "@class": "endpoint.http.HttpEndpoint",
              port: await freePort(),
              host: "127.0.0.1",
              hostname: EXTERNAL_HOST,
              profiles: ["SUBMODEL_REPOSITORY_READ"],
            },
          ],
        }),
      );
      store = await startTwinport({
        role: "model-store",
        cwd,
        args: ["-c", "config.json", "-m", EXAMPLE_MODEL],
        env: { TWINPORT_PERSISTENCE_URL: ownRedis.url, TWINPORT_MESSAGEBUS_URL: ownNats.url },
      });
      await waitFor("submodels registered", () => registry.submodels.size === 6);
      assertNoShellRegistered(registry, readFileSync(store.logFile, "utf8"));
    } finally {
      await store?.stop();
      await ownRedis.stop();
      await ownNats.stop();
      await registry.stop();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
