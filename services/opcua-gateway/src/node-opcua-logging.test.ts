import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";

// node-opcua (server and client) writes into $XDG_CONFIG_HOME unless given explicit PKI folders.
const dir = mkdtempSync(join(tmpdir(), "twinport-node-opcua-logging-"));
process.env.XDG_CONFIG_HOME = join(dir, "xdg");

const { MessageSecurityMode, OPCUACertificateManager, OPCUAClient, SecurityPolicy } = await import("node-opcua");
const {
  createDirectStoreClient,
  createEngine,
  createInProcessEventBus,
  createLogger,
  createMemoryRepository,
  loadConfig,
} = await import("@twinport/shared");
const { startOpcuaGateway } = await import("./index.ts");
const { freePort } = await import("../../../tests/test-support/servers.ts");
type OpcUaEndpointConfig = import("@twinport/shared").OpcUaEndpointConfig;

const bus = createInProcessEventBus();
const engine = createEngine({ repository: createMemoryRepository(), bus });
const store = createDirectStoreClient(engine);
const clientCertificates = new OPCUACertificateManager({
  rootFolder: join(dir, "client-pki"),
  automaticallyAcceptUnknownCertificate: true,
});

after(async () => {
  await clientCertificates.dispose();
  await store.close();
  await engine.close();
  await bus.close();
  rmSync(dir, { recursive: true, force: true });
});

interface LogRecord {
  level: number;
  role: string;
  component?: string;
  module?: string;
  line?: number;
  msg: string;
}

async function endpointConfig(): Promise<OpcUaEndpointConfig> {
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
    ],
  });
  return config.endpoints[0] as OpcUaEndpointConfig;
}

test("a node-opcua warning is a pino line at level debug (chatter), from the node-opcua module's own child logger", async () => {
  const records: LogRecord[] = [];
  // The gateway's logger exactly as a process makes it (runRole), at debug so no level is filtered out.
  const logger = createLogger({
    role: "opcua-gateway",
    level: "debug",
    destination: { write: (text: string) => records.push(JSON.parse(text) as LogRecord) },
  });
  const gateway = await startOpcuaGateway({
    store,
    bus,
    endpoint: await endpointConfig(),
    stateDir: dir,
    log: () => undefined,
    logger,
  });
  try {
    // An endpoint URL the server does not advertise (same host and port, another path): node-opcua's
    // server answers CreateSession and warns that no endpoint matches it.
    const mismatchedUrl = `${gateway.endpointUrl}/not-advertised`;
    const client = OPCUAClient.create({
      endpointMustExist: false,
      securityMode: MessageSecurityMode.None,
      securityPolicy: SecurityPolicy.None,
      clientCertificateManager: clientCertificates,
      connectionStrategy: { maxRetry: 0, initialDelay: 100 },
    });
    try {
      await client.connect(mismatchedUrl);
      const session = await client.createSession().catch(() => undefined);
      await session?.close().catch(() => undefined);
    } finally {
      await client.disconnect();
    }

    const warning = records.find((record) => /Cannot find suitable endpoints/.test(record.msg));
    assert.ok(warning, `no such line among ${JSON.stringify(records)}`);
    assert.equal(warning.level, 20); // pino's debug
    assert.equal((warning as LogRecord & { opcuaLevel?: string }).opcuaLevel, "warn");
    assert.equal(warning.component, "node-opcua");
    assert.equal(warning.module, "opcua_server");
    assert.equal(warning.role, "opcua-gateway");
    assert.ok(Number.isInteger(warning.line) && warning.line! > 0, "the node-opcua source line");
    assert.ok(warning.msg.includes(mismatchedUrl), warning.msg);
    // No hand-made prefix, no colour codes: the level is in the level field.
    assert.doesNotMatch(warning.msg, /^node-opcua|\u001b\[/);
    // Nothing node-opcua said came out at info any more.
    assert.deepEqual(
      records.filter((record) => record.component === "node-opcua" && record.level === 30),
      [],
    );
  } finally {
    await gateway.stop();
  }
});
