import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";

// node-opcua (server and client) writes into $XDG_CONFIG_HOME unless given explicit PKI folders:
// point it at an empty folder first, to prove nothing lands there.
const dir = mkdtempSync(join(tmpdir(), "twinport-opcua-gateway-"));
const xdg = join(dir, "xdg");
process.env.XDG_CONFIG_HOME = xdg;

const { MessageSecurityMode, OPCUACertificateManager, OPCUAClient, SecurityPolicy, UserTokenType } = await import(
  "node-opcua"
);
const { createDirectStoreClient, createEngine, createInProcessEventBus, createMemoryRepository, loadConfig } =
  await import("@twinport/shared");
const { startOpcuaGateway, AAS_ENVIRONMENT_BROWSE_NAME } = await import("./index.ts");
const { freePort } = await import("../../../tests/test-support/servers.ts");
type OpcUaEndpointConfig = import("@twinport/shared").OpcUaEndpointConfig;

const bus = createInProcessEventBus();
const engine = createEngine({ repository: createMemoryRepository(), bus });
const store = createDirectStoreClient(engine);
const logLines: string[] = [];
const clientCertificates = new OPCUACertificateManager({
  rootFolder: join(dir, "client-pki"),
  automaticallyAcceptUnknownCertificate: true,
});

before(async () => {
  await clientCertificates.initialize();
});

after(async () => {
  await clientCertificates.dispose();
  await store.close();
  await engine.close();
  await bus.close();
  rmSync(dir, { recursive: true, force: true });
});

async function endpointConfig(overrides: string[] = []): Promise<OpcUaEndpointConfig> {
  const port = await freePort();
  const { config } = loadConfig({
    role: "opcua-gateway",
    endpointKinds: ["opcua"],
    overrides: [
      `endpoints[0].tcpPort=${port}`,
      "endpoints[0].host=127.0.0.1",
      "endpoints[0].hostname=127.0.0.1",
      "endpoints[0].secondsTillShutdown=0",
      `endpoints[0].serverCertificateBasePath=${join(dir, "PKI", "CA")}`,
      `endpoints[0].userCertificateBasePath=${join(dir, "USERS_PKI", "CA")}`,
      ...overrides,
    ],
  });
  return config.endpoints[0] as OpcUaEndpointConfig;
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

function client() {
  return OPCUAClient.create({
    endpointMustExist: false,
    securityMode: MessageSecurityMode.None,
    securityPolicy: SecurityPolicy.None,
    clientCertificateManager: clientCertificates,
    connectionStrategy: { maxRetry: 0, initialDelay: 100 },
  });
}

/**
 * Handles that would keep the process alive, once closes in progress have completed (a closed
 * server stays listed until the next turn of the event loop). Timers and fs requests are left out:
 * they end by themselves.
 */
async function liveHandles(): Promise<string[]> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  return process
    .getActiveResourcesInfo()
    .filter((kind) => !["Timeout", "Immediate", "FSReqPromise", "FSReqCallback"].includes(kind))
    .sort();
}

test("serves AASEnvironment under Objects on the configured port; stops cleanly and frees the port", async () => {
  const handlesBefore = await liveHandles();
  const endpoint = await endpointConfig();
  const gateway = await startOpcuaGateway({
    store,
    bus,
    endpoint,
    stateDir: join(dir, "state"),
    log: (line) => logLines.push(line),
  });
  assert.equal(gateway.endpointUrl, `opc.tcp://127.0.0.1:${endpoint.tcpPort}`);
  assert.equal(await portIsFree(endpoint.tcpPort), false);

  const opcua = client();
  await opcua.connect(gateway.endpointUrl);
  try {
    // Default policies: None/None plus Sign and SignAndEncrypt for the three others.
    const endpoints = await opcua.getEndpoints();
    assert.deepEqual(
      endpoints.map((e) => `${e.securityPolicyUri?.split("#")[1]}/${MessageSecurityMode[e.securityMode]}`).sort(),
      [
        "Aes128_Sha256_RsaOaep/Sign",
        "Aes128_Sha256_RsaOaep/SignAndEncrypt",
        "Aes256_Sha256_RsaPss/Sign",
        "Aes256_Sha256_RsaPss/SignAndEncrypt",
        "Basic256Sha256/Sign",
        "Basic256Sha256/SignAndEncrypt",
        "None/None",
      ],
    );
    const session = await opcua.createSession();
    const objects = await session.browse("ObjectsFolder");
    const names = objects.references?.map((reference) => reference.browseName.name) ?? [];
    assert.ok(names.includes(AAS_ENVIRONMENT_BROWSE_NAME), `Objects has ${names.join(", ")}`);
    await session.close();
  } finally {
    await opcua.disconnect();
  }

  await gateway.stop();
  assert.equal(await portIsFree(endpoint.tcpPort), true);
  assert.deepEqual(await liveHandles(), handlesBefore);

  // PKI in the configured folder, nothing in node-opcua's per-user default.
  assert.ok(existsSync(join(dir, "PKI", "CA", "certs")) && existsSync(join(dir, "PKI", "CA", "private")));
  assert.ok(existsSync(join(dir, "USERS_PKI", "CA")));
  assert.deepEqual(existsSync(xdg) ? readdirSync(xdg) : [], []);
  // node-opcua's warnings went to the given log, not stdout.
  assert.ok(
    logLines.every((line) => /^(node-opcua |opcua-gateway: )/.test(line)),
    logLines.join("\n"),
  );
});

test("UserName only: anonymous sessions are refused, userMap users get in; stop honours secondsTillShutdown", async () => {
  const endpoint = await endpointConfig([
    'endpoints[0].supportedAuthentications=["UserName"]',
    'endpoints[0].userMap={"alice":"wonder"}',
    "endpoints[0].supportedSecurityPolicies=NONE,BASIC256SHA256",
    "endpoints[0].secondsTillShutdown=1",
  ]);
  const gateway = await startOpcuaGateway({
    store,
    bus,
    endpoint,
    stateDir: join(dir, "state"),
    log: (line) => logLines.push(line),
  });
  const opcua = client();
  try {
    await opcua.connect(gateway.endpointUrl);
    await assert.rejects(opcua.createSession());
    await assert.rejects(opcua.createSession({ type: UserTokenType.UserName, userName: "alice", password: "wrong" }));
    const session = await opcua.createSession({ type: UserTokenType.UserName, userName: "alice", password: "wonder" });
    await session.close();
  } finally {
    await opcua.disconnect();
    const stopping = Date.now();
    await gateway.stop();
    assert.ok(Date.now() - stopping >= 900, `stop took ${Date.now() - stopping} ms, secondsTillShutdown is 1`);
  }
});

test("a port in use is an error naming the tcpPort setting, and leaves nothing running", async () => {
  const endpoint = await endpointConfig();
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(endpoint.tcpPort, "127.0.0.1", resolve));
  const handlesBefore = await liveHandles();
  try {
    await assert.rejects(
      startOpcuaGateway({ store, bus, endpoint, stateDir: join(dir, "state"), log: (line) => logLines.push(line) }),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, "EADDRINUSE");
        assert.match(
          error.message,
          new RegExp(
            `cannot listen on 127\\.0\\.0\\.1:${endpoint.tcpPort}: the port is already in use\\. Change the OPC UA endpoint's "tcpPort" setting`,
          ),
        );
        return true;
      },
    );
    assert.deepEqual(await liveHandles(), handlesBefore);
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
});
