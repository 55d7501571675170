import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";

const dir = mkdtempSync(join(tmpdir(), "twinport-discovery-"));
process.env.XDG_CONFIG_HOME = join(dir, "xdg");

const { OPCUACertificateManager, OPCUADiscoveryServer } = await import("node-opcua");
const { createDirectStoreClient, createEngine, createInProcessEventBus, createMemoryRepository, loadConfig } =
  await import("@twinport/shared");
const { startOpcuaGateway } = await import("../index.ts");
const { freePort } = await import("../../../../tests/test-support/servers.ts");
type OpcUaEndpointConfig = import("@twinport/shared").OpcUaEndpointConfig;

const bus = createInProcessEventBus();
const engine = createEngine({ repository: createMemoryRepository(), bus });
const store = createDirectStoreClient(engine);

after(async () => {
  await store.close();
  await engine.close();
  await bus.close();
  rmSync(dir, { recursive: true, force: true });
});

async function eventually(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test("registers with the configured discovery server in the background, says so, and unregisters on stop", async () => {
  // A discovery server that trusts any registrant (registration runs over a signed and encrypted channel).
  const ldsPort = await freePort();
  const ldsPki = new OPCUACertificateManager({
    rootFolder: join(dir, "lds-pki"),
    automaticallyAcceptUnknownCertificate: true,
  });
  const lds = new OPCUADiscoveryServer({ port: ldsPort, hostname: "127.0.0.1", serverCertificateManager: ldsPki });
  await lds.start();
  const registered: string[] = [];
  const unregistered: string[] = [];
  lds.on("onRegisterServer", (server) => registered.push(server.serverUri ?? ""));
  lds.on("onUnregisterServer", (server) => unregistered.push(server.serverUri ?? ""));

  const { config } = loadConfig({
    role: "opcua-gateway",
    endpointKinds: ["opcua"],
    overrides: [
      `endpoints[0].tcpPort=${await freePort()}`,
      "endpoints[0].host=127.0.0.1",
      "endpoints[0].hostname=127.0.0.1",
      "endpoints[0].secondsTillShutdown=0",
      `endpoints[0].serverCertificateBasePath=${join(dir, "PKI", "CA")}`,
      `endpoints[0].userCertificateBasePath=${join(dir, "USERS_PKI", "CA")}`,
      `endpoints[0].discoveryServerUrl=opc.tcp://127.0.0.1:${ldsPort}`,
    ],
  });
  const endpoint = config.endpoints[0] as OpcUaEndpointConfig;
  const logLines: string[] = [];
  const gateway = await startOpcuaGateway({
    store,
    bus,
    endpoint,
    stateDir: join(dir, "state"),
    log: (line) => logLines.push(line),
  });
  try {
    await eventually(() => registered.length > 0, "a registration");
    assert.deepEqual(registered, ["urn:127.0.0.1:Twinport:AAS-OPC-UA-Server"]);
    await eventually(
      () =>
        logLines.some(
          (line) => line === `opcua-gateway: registered with the discovery server opc.tcp://127.0.0.1:${ldsPort}`,
        ),
      "the log line",
    );
  } finally {
    await gateway.stop();
    await eventually(() => unregistered.length > 0, "the unregistration", 5_000).finally(async () => {
      // node-opcua's discovery server ends its mDNS announcement on a timer: the file's process
      // lingers ~10 s after this test; nothing of ours is left running.
      await lds.shutdown();
      await ldsPki.dispose();
    });
  }
});
