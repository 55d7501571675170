import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

// node-opcua (server and client) writes into $XDG_CONFIG_HOME unless given explicit PKI folders.
const dir = mkdtempSync(join(tmpdir(), "twinport-opcua-principal-"));
process.env.XDG_CONFIG_HOME = join(dir, "xdg");

const {
  AttributeIds,
  DataType,
  MessageSecurityMode,
  OPCUACertificateManager,
  OPCUAClient,
  SecurityPolicy,
  UserTokenType,
  Variant,
} = await import("node-opcua");
const {
  ANONYMOUS,
  createDirectStoreClient,
  createEngine,
  createInProcessEventBus,
  createMemoryRepository,
  loadConfig,
} = await import("@twinport/shared");
const { startOpcuaGateway } = await import("../index.ts");
const { freePort } = await import("../../../../tests/test-support/servers.ts");
const { AAS_V3_NAMESPACE_URI } = await import("../../../../tests/test-support/opcua-client.ts");
const { elementNode, opcuaTestEnvironment, VALUES_SUBMODEL } = await import(
  "../../../../tests/test-support/opcua-model.ts"
);
type Command = import("@twinport/shared").Command;
type StoreClient = import("@twinport/shared").StoreClient;
type OpcUaEndpointConfig = import("@twinport/shared").OpcUaEndpointConfig;
type RunningOpcuaGateway = import("../index.ts").RunningOpcuaGateway;
type UserIdentityInfo = import("node-opcua").UserIdentityInfo;

// The real engine behind the gateway; the commands on their way to it are only looked at, so the
// test sees which principal each write and call carried.
const bus = createInProcessEventBus();
const engine = createEngine({ repository: createMemoryRepository(), bus });
const direct = createDirectStoreClient(engine);
const sent: Command[] = [];
const store: StoreClient = {
  execute: (command, options) => {
    sent.push(command);
    return direct.execute(command, options);
  },
  close: () => direct.close(),
};

const clientPki = new OPCUACertificateManager({
  rootFolder: join(dir, "client-pki"),
  automaticallyAcceptUnknownCertificate: true,
});
const userIdentityPki = new OPCUACertificateManager({
  rootFolder: join(dir, "user-identity"),
  automaticallyAcceptUnknownCertificate: true,
});
let bob: UserIdentityInfo;
let gateway: RunningOpcuaGateway;
let endpoint: OpcUaEndpointConfig;

const ROLE_ASSIGNMENTS = [
  { user: "alice", roles: ["operator"] },
  { certificateSubject: "CN=bob,O=Twinport Tests", roles: ["maintenance", "operator"] },
];

before(async () => {
  const loaded = await direct.execute({
    type: "LoadEnvironment",
    params: { body: JSON.stringify(opcuaTestEnvironment()), validate: true },
  });
  assert.ok(loaded.ok, JSON.stringify(loaded));
  await clientPki.initialize();
  await userIdentityPki.initialize();
  const pemFile = join(dir, "bob.pem");
  await userIdentityPki.createSelfSignedCertificate({
    applicationUri: "urn:user:bob",
    subject: "/O=Twinport Tests/CN=bob",
    dns: [],
    startDate: new Date(),
    validity: 30,
    outputFile: pemFile,
  });
  bob = {
    type: UserTokenType.Certificate,
    certificateData: Buffer.from(new X509Certificate(readFileSync(pemFile)).raw),
    privateKey: readFileSync(userIdentityPki.privateKey, "utf8"),
  };

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
      'endpoints[0].supportedSecurityPolicies=["NONE","BASIC256SHA256"]',
      'endpoints[0].supportedAuthentications=["Anonymous","UserName","Certificate"]',
      'endpoints[0].userMap={"alice":"wonder"}',
    ],
  });
  endpoint = config.endpoints[0] as OpcUaEndpointConfig;
  gateway = await startOpcuaGateway({
    store,
    bus,
    endpoint,
    stateDir: join(dir, "state"),
    log: () => undefined,
    // Everyone may do everything: the test looks at who the commands say is asking, not at refusals.
    security: {
      authentication: {},
      roleAssignments: ROLE_ASSIGNMENTS,
      rules: [
        {
          subjects: [{ anonymous: true }, { authenticated: true }],
          rights: ["READ", "CREATE", "UPDATE", "DELETE", "EXECUTE"],
          objects: [{ all: true }],
        },
      ],
    },
  });
});

after(async () => {
  await gateway?.stop();
  await clientPki.dispose();
  await userIdentityPki.dispose();
  await store.close();
  await engine.close();
  await bus.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Trusts what the server filed in `base`/rejected (the client application, or a user certificate). */
function trustRejected(base: string): void {
  for (const file of readdirSync(join(base, "rejected")))
    renameSync(join(base, "rejected", file), join(base, "certs", file));
}

/** Opens a session as `identity` over Basic256Sha256, runs `work`, and closes everything. */
async function asSession(
  identity: UserIdentityInfo | undefined,
  work: (session: import("node-opcua").ClientSession, nodeId: (local: string) => string) => Promise<void>,
): Promise<void> {
  const client = OPCUAClient.create({
    endpointMustExist: false,
    securityPolicy: SecurityPolicy.Basic256Sha256,
    securityMode: MessageSecurityMode.SignAndEncrypt,
    clientCertificateManager: clientPki,
    connectionStrategy: { maxRetry: 0, initialDelay: 50, maxDelay: 100 },
  });
  try {
    await client.connect(gateway.endpointUrl);
    const session = await client.createSession(identity);
    const ns = ((await session.readNamespaceArray()) as string[]).indexOf(AAS_V3_NAMESPACE_URI);
    await work(session, (local) => `ns=${ns};s=${local}`);
    await session.close();
  } finally {
    await client.disconnect().catch(() => undefined);
  }
}

/** Writes TString and calls the Operation Start; answers the principals those commands carried. */
async function writeAndCall(identity: UserIdentityInfo | undefined): Promise<{ write: unknown; call: unknown }> {
  sent.length = 0;
  await asSession(identity, async (session, nodeId) => {
    const status = await session.write({
      nodeId: nodeId(elementNode(VALUES_SUBMODEL, "TString", "Value")),
      attributeId: AttributeIds.Value,
      value: { value: new Variant({ dataType: DataType.String, value: "written" }) },
    });
    assert.equal(status.name, "Good");
    // No operation provider runs Start: the call fails, but its command went out and is seen here.
    await session.call({
      objectId: nodeId(elementNode(VALUES_SUBMODEL, "Start")),
      methodId: nodeId(elementNode(VALUES_SUBMODEL, "Start", "Invoke")),
      inputArguments: [
        new Variant({ dataType: DataType.Int32, value: 1 }),
        new Variant({ dataType: DataType.String, value: "[]" }),
      ],
    });
  });
  const write = sent.find((command) => command.type === "PatchSubmodelElementValueByPath");
  const call = sent.find((command) => command.type === "InvokeOperation");
  assert.ok(write, `no write command among ${sent.map((command) => command.type).join(", ")}`);
  assert.ok(call, `no InvokeOperation command among ${sent.map((command) => command.type).join(", ")}`);
  // The gateway's own read of the Operation's signature is not the caller's: it carries SYSTEM,
  // which the store client turns back into "no principal" before the engine.
  assert.equal(sent.find((command) => command.type === "GetSubmodelElementByPath")?.principal?.kind, "system");
  return { write: write.principal, call: call.principal };
}

describe("the principal of an OPC UA session reaches every command it sends", () => {
  before(async () => {
    // The first secure connection files the client application's certificate; trust it.
    await asSession(undefined, async () => undefined).catch(() => undefined);
    trustRejected(endpoint.serverCertificateBasePath);
  });

  test("Anonymous: the anonymous principal", async () => {
    const { write, call } = await writeAndCall(undefined);
    assert.deepEqual(write, ANONYMOUS);
    assert.deepEqual(call, ANONYMOUS);
  });

  test("UserName: a user named by the user name, with the roles assigned to it", async () => {
    const { write, call } = await writeAndCall({ type: UserTokenType.UserName, userName: "alice", password: "wonder" });
    assert.deepEqual(write, { kind: "user", name: "alice", roles: ["operator"] });
    assert.deepEqual(call, write);
  });

  test("Certificate: a certificate principal named by the subject DN (RFC 4514), with the roles assigned to it", async () => {
    // The user certificate is trusted through USERS_PKI, as an operator would: filed in rejected/, moved to certs/.
    await writeAndCall(bob).catch(() => undefined);
    trustRejected(endpoint.userCertificateBasePath);
    const { write, call } = await writeAndCall(bob);
    assert.deepEqual(write, {
      kind: "certificate",
      name: "CN=bob,O=Twinport Tests",
      roles: ["maintenance", "operator"],
    });
    assert.deepEqual(call, write);
  });
});
