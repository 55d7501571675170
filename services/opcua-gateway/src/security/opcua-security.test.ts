import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

// node-opcua (server and client) writes into $XDG_CONFIG_HOME unless given explicit PKI folders.
const dir = mkdtempSync(join(tmpdir(), "twinport-opcua-security-"));
process.env.XDG_CONFIG_HOME = join(dir, "xdg");

const {
  AttributeIds,
  MessageSecurityMode,
  OPCUACertificateManager,
  OPCUAClient,
  SecurityPolicy,
  UserTokenPolicy,
  UserTokenType,
} = await import("node-opcua");
const { createDirectStoreClient, createEngine, createInProcessEventBus, createMemoryRepository, loadConfig } =
  await import("@twinport/shared");
const { startOpcuaGateway } = await import("../index.ts");
const { freePort } = await import("../../../../tests/test-support/servers.ts");
type OpcUaEndpointConfig = import("@twinport/shared").OpcUaEndpointConfig;
type RunningOpcuaGateway = import("../index.ts").RunningOpcuaGateway;
type OPCUAClient = import("node-opcua").OPCUAClient;
type UserIdentityInfo = import("node-opcua").UserIdentityInfo;

const bus = createInProcessEventBus();
const engine = createEngine({ repository: createMemoryRepository(), bus });
const store = createDirectStoreClient(engine);
const logLines: string[] = [];
// The client application's own store; it trusts whatever server it talks to.
const clientPki = new OPCUACertificateManager({
  rootFolder: join(dir, "client-pki"),
  automaticallyAcceptUnknownCertificate: true,
});
// A user's X.509 identity (Certificate authentication), made by a store of its own.
const userIdentityPki = new OPCUACertificateManager({
  rootFolder: join(dir, "user-identity"),
  automaticallyAcceptUnknownCertificate: true,
});
let userIdentity: UserIdentityInfo;

before(async () => {
  await clientPki.initialize();
  await userIdentityPki.initialize();
  const pemFile = join(dir, "user-identity.pem");
  await userIdentityPki.createSelfSignedCertificate({
    applicationUri: "urn:user:bob",
    subject: "/CN=bob",
    dns: [],
    startDate: new Date(),
    validity: 30,
    outputFile: pemFile,
  });
  userIdentity = {
    type: UserTokenType.Certificate,
    certificateData: Buffer.from(new X509Certificate(readFileSync(pemFile)).raw),
    privateKey: readFileSync(userIdentityPki.privateKey, "utf8"),
  };
});

after(async () => {
  await clientPki.dispose();
  await userIdentityPki.dispose();
  await store.close();
  await engine.close();
  await bus.close();
  rmSync(dir, { recursive: true, force: true });
});

async function endpointConfig(name: string, overrides: string[]): Promise<OpcUaEndpointConfig> {
  const { config } = loadConfig({
    role: "opcua-gateway",
    endpointKinds: ["opcua"],
    overrides: [
      `endpoints[0].tcpPort=${await freePort()}`,
      "endpoints[0].host=127.0.0.1",
      "endpoints[0].hostname=127.0.0.1",
      "endpoints[0].secondsTillShutdown=0",
      `endpoints[0].serverCertificateBasePath=${join(dir, name, "PKI", "CA")}`,
      `endpoints[0].userCertificateBasePath=${join(dir, name, "USERS_PKI", "CA")}`,
      ...overrides,
    ],
  });
  return config.endpoints[0] as OpcUaEndpointConfig;
}

function start(endpoint: OpcUaEndpointConfig): Promise<RunningOpcuaGateway> {
  return startOpcuaGateway({ store, bus, endpoint, stateDir: join(dir, "state"), log: (line) => logLines.push(line) });
}

async function connect(
  url: string,
  securityPolicy: import("node-opcua").SecurityPolicy,
  securityMode: import("node-opcua").MessageSecurityMode,
): Promise<OPCUAClient> {
  const client = OPCUAClient.create({
    endpointMustExist: false,
    securityMode,
    securityPolicy,
    clientCertificateManager: clientPki,
    connectionStrategy: { maxRetry: 0, initialDelay: 50, maxDelay: 100 },
  });
  try {
    await client.connect(url);
  } catch (error) {
    await client.disconnect().catch(() => undefined);
    throw error;
  }
  return client;
}

/**
 * Opens a session with `identity`, reads the server state, closes everything; throws what the
 * server refused. `offer` adds a token policy to the client's copy of the endpoint, so it sends
 * a token type the server did not advertise: the refusal then comes from the server.
 */
async function readWith(
  url: string,
  policy: import("node-opcua").SecurityPolicy,
  mode: import("node-opcua").MessageSecurityMode,
  identity?: UserIdentityInfo,
  offer?: { policyId: string; tokenType: import("node-opcua").UserTokenType; securityPolicyUri?: string },
): Promise<void> {
  const client = await connect(url, policy, mode);
  try {
    if (offer) {
      for (const endpoint of (client as unknown as { _serverEndpoints: import("node-opcua").EndpointDescription[] })
        ._serverEndpoints) {
        endpoint.userIdentityTokens = [...(endpoint.userIdentityTokens ?? []), new UserTokenPolicy(offer)];
      }
    }
    const session = await client.createSession(identity);
    const state = await session.read({ nodeId: "i=2259", attributeId: AttributeIds.Value }); // Server_ServerStatus_State
    assert.equal(state.statusCode.name, "Good");
    await session.close();
  } finally {
    await client.disconnect();
  }
}

async function eventually(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Moves the single certificate of `base`/rejected into `base`/certs, as an operator would. */
function trustRejected(base: string): string {
  const rejected = readdirSync(join(base, "rejected"));
  assert.equal(rejected.length, 1, `rejected/ holds ${rejected.join(", ")}`);
  renameSync(join(base, "rejected", rejected[0]!), join(base, "certs", rejected[0]!));
  return rejected[0]!;
}

const tokenTypesOf = (endpoint: import("node-opcua").EndpointDescription) =>
  [...new Set((endpoint.userIdentityTokens ?? []).map((token) => UserTokenType[token.tokenType]))].sort();

const ALL_BUT_BASIC128RSA15 = ["NONE", "BASIC256", "BASIC256SHA256", "AES128_SHA256_RSAOAEP", "AES256_SHA256_RSAPSS"];
const POLICIES = [
  SecurityPolicy.Basic256,
  SecurityPolicy.Basic256Sha256,
  SecurityPolicy.Aes128_Sha256_RsaOaep,
  SecurityPolicy.Aes256_Sha256_RsaPss,
];

describe("every authentication, five policies (BASIC128RSA15 has its own test: basic128rsa15.test.ts)", () => {
  let endpoint: OpcUaEndpointConfig;
  let gateway: RunningOpcuaGateway;
  let serverPki: string;
  let usersPki: string;
  before(async () => {
    endpoint = await endpointConfig("full", [
      `endpoints[0].supportedSecurityPolicies=${JSON.stringify(ALL_BUT_BASIC128RSA15)}`,
      'endpoints[0].supportedAuthentications=["Anonymous","UserName","Certificate"]',
      'endpoints[0].userMap={"alice":"wonder"}',
    ]);
    serverPki = endpoint.serverCertificateBasePath;
    usersPki = endpoint.userCertificateBasePath;
    gateway = await start(endpoint);
  });
  after(() => gateway.stop());

  test("GetEndpoints: None/None plus Sign and SignAndEncrypt per policy, each with the three token types", async () => {
    const client = await connect(gateway.endpointUrl, SecurityPolicy.None, MessageSecurityMode.None);
    try {
      const endpoints = await client.getEndpoints();
      assert.deepEqual(
        endpoints.map((e) => `${e.securityPolicyUri?.split("#")[1]}/${MessageSecurityMode[e.securityMode]}`).sort(),
        [
          "None/None",
          ...POLICIES.flatMap((policy) => [`${policy.split("#")[1]}/Sign`, `${policy.split("#")[1]}/SignAndEncrypt`]),
        ].sort(),
      );
      for (const e of endpoints) assert.deepEqual(tokenTypesOf(e), ["Anonymous", "Certificate", "UserName"]);
      // The certificate the endpoints carry is the one in private/, under the spec's name.
      const der = readFileSync(join(serverPki, "private", "Twinport AAS OPC UA Server@127.0.0.1_2048.der"));
      assert.deepEqual(Buffer.from(endpoints[0]!.serverCertificate!), der);
    } finally {
      await client.disconnect();
    }
  });

  test("an unknown client certificate is refused and kept in rejected/; moved to certs/ it is trusted, no restart", async () => {
    assert.deepEqual(readdirSync(join(serverPki, "rejected")), []);
    await assert.rejects(
      connect(gateway.endpointUrl, SecurityPolicy.Basic256Sha256, MessageSecurityMode.SignAndEncrypt),
    );
    await eventually(
      () => readdirSync(join(serverPki, "rejected")).length === 1,
      "the client certificate is filed in rejected/",
    );
    const file = trustRejected(serverPki);
    assert.match(file, /\.pem$/);
    // The next connection attempt is trusted: no file watcher to wait for.
    await readWith(gateway.endpointUrl, SecurityPolicy.Basic256Sha256, MessageSecurityMode.SignAndEncrypt);
    assert.deepEqual(readdirSync(join(serverPki, "rejected")), []);
  });

  for (const policy of POLICIES) {
    test(`${policy.split("#")[1]}: Sign and SignAndEncrypt sessions (client trusted through certs/)`, async () => {
      await readWith(gateway.endpointUrl, policy, MessageSecurityMode.SignAndEncrypt);
      await readWith(gateway.endpointUrl, policy, MessageSecurityMode.Sign);
    });
  }

  test("UserName: a userMap user gets in (password encrypted even on None/None); a wrong password is BadUserAccessDenied", async () => {
    await readWith(gateway.endpointUrl, SecurityPolicy.Aes128_Sha256_RsaOaep, MessageSecurityMode.SignAndEncrypt, {
      type: UserTokenType.UserName,
      userName: "alice",
      password: "wonder",
    });
    await readWith(gateway.endpointUrl, SecurityPolicy.None, MessageSecurityMode.None, {
      type: UserTokenType.UserName,
      userName: "alice",
      password: "wonder",
    });
    for (const [userName, password] of [
      ["alice", "wrong"],
      ["mallory", "wonder"],
    ] as const) {
      await assert.rejects(
        readWith(gateway.endpointUrl, SecurityPolicy.Basic256Sha256, MessageSecurityMode.SignAndEncrypt, {
          type: UserTokenType.UserName,
          userName,
          password,
        }),
        /BadUserAccessDenied/,
      );
    }
  });

  test("Certificate: an unknown user certificate is refused and kept in the user rejected/; moved to certs/ it logs in", async () => {
    await assert.rejects(
      readWith(gateway.endpointUrl, SecurityPolicy.Basic256Sha256, MessageSecurityMode.SignAndEncrypt, userIdentity),
      /BadIdentityTokenRejected|BadUserAccessDenied/,
    );
    await eventually(
      () => readdirSync(join(usersPki, "rejected")).length === 1,
      "the user certificate is filed in rejected/",
    );
    trustRejected(usersPki);
    await readWith(
      gateway.endpointUrl,
      SecurityPolicy.Basic256Sha256,
      MessageSecurityMode.SignAndEncrypt,
      userIdentity,
    );
    assert.deepEqual(readdirSync(join(usersPki, "rejected")), []);
  });
});

describe("UserName only, with an unreachable discovery server", () => {
  let endpoint: OpcUaEndpointConfig;
  let gateway: RunningOpcuaGateway;
  let startMs: number;
  before(async () => {
    endpoint = await endpointConfig("restricted", [
      "endpoints[0].supportedSecurityPolicies=NONE,BASIC256SHA256",
      'endpoints[0].supportedAuthentications=["UserName"]',
      'endpoints[0].userMap={"alice":"wonder"}',
      // A port nobody listens on (freePort closed its probe).
      `endpoints[0].discoveryServerUrl=opc.tcp://127.0.0.1:${await freePort()}`,
    ]);
    const began = Date.now();
    gateway = await start(endpoint);
    startMs = Date.now() - began;
  });
  after(() => gateway.stop());

  test("GetEndpoints advertises UserName tokens only", async () => {
    const client = await connect(gateway.endpointUrl, SecurityPolicy.None, MessageSecurityMode.None);
    try {
      const endpoints = await client.getEndpoints();
      assert.equal(endpoints.length, 3);
      for (const e of endpoints) assert.deepEqual(tokenTypesOf(e), ["UserName"]);
    } finally {
      await client.disconnect();
    }
  });

  test("the server refuses anonymous and certificate tokens, even a user certificate in certs/; alice gets in", async () => {
    // The client alone already declines: nothing advertised.
    await assert.rejects(
      readWith(gateway.endpointUrl, SecurityPolicy.None, MessageSecurityMode.None),
      /Cannot find ANONYMOUS user token policy/,
    );
    // Sent anyway, the server refuses it.
    await assert.rejects(
      readWith(gateway.endpointUrl, SecurityPolicy.None, MessageSecurityMode.None, undefined, {
        policyId: "anonymous",
        tokenType: UserTokenType.Anonymous,
      }),
      /BadIdentityTokenInvalid/,
    );
    // A user certificate the user PKI trusts is still refused: Certificate is not configured.
    writeFileSync(
      join(endpoint.userCertificateBasePath, "certs", "bob.der"),
      (userIdentity as { certificateData: Buffer }).certificateData,
    );
    await assert.rejects(
      readWith(gateway.endpointUrl, SecurityPolicy.None, MessageSecurityMode.None, userIdentity, {
        policyId: "certificate",
        tokenType: UserTokenType.Certificate,
        securityPolicyUri: SecurityPolicy.Basic256Sha256,
      }),
      /BadIdentityTokenInvalid/,
    );
    assert.deepEqual(readdirSync(join(endpoint.userCertificateBasePath, "rejected")), []);
    await readWith(gateway.endpointUrl, SecurityPolicy.None, MessageSecurityMode.None, {
      type: UserTokenType.UserName,
      userName: "alice",
      password: "wonder",
    });
  });

  test("the unreachable discovery server neither blocks start nor stop, and is reported once", async () => {
    // A start that waited for the registration would never return: node-opcua retries forever.
    assert.ok(startMs < 15_000, `start took ${startMs} ms`);
    const reported = () => logLines.filter((line) => line.includes("registering with the discovery server"));
    await eventually(() => reported().length > 0, "a log line about the discovery server");
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // node-opcua retries meanwhile
    assert.equal(reported().length, 1);
    assert.equal(logLines.filter((line) => line.includes("registered with the discovery server")).length, 0);
    const stopping = Date.now();
    await gateway.stop();
    assert.ok(Date.now() - stopping < 5_000, `stop took ${Date.now() - stopping} ms`);
  });
});

test("nothing of either server landed in node-opcua's per-user folder", () => {
  assert.equal(existsSync(join(dir, "xdg")), false);
});
