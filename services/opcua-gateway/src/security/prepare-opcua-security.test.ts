import assert from "node:assert/strict";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { hostname as machineHostname, tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";

const dir = mkdtempSync(join(tmpdir(), "twinport-prepare-security-"));
process.env.XDG_CONFIG_HOME = join(dir, "xdg");

const { MessageSecurityMode, RegisterServerMethod, SecurityPolicy } = await import("node-opcua");
const { loadConfig } = await import("@twinport/shared");
const { prepareOpcuaSecurity } = await import("./opcua-security.ts");
const { applicationUriOf, ensureServerCertificate, serverCertificateFiles } = await import("./server-certificate.ts");
const { SpecLayoutCertificateManager } = await import("./spec-layout-certificate-manager.ts");
type OpcUaEndpointConfig = import("@twinport/shared").OpcUaEndpointConfig;

after(() => rmSync(dir, { recursive: true, force: true }));

function endpointConfig(name: string, overrides: string[]): OpcUaEndpointConfig {
  const { config } = loadConfig({
    role: "opcua-gateway",
    endpointKinds: ["opcua"],
    overrides: [
      `endpoints[0].serverCertificateBasePath=${join(dir, name, "PKI", "CA")}`,
      `endpoints[0].userCertificateBasePath=${join(dir, name, "USERS_PKI", "CA")}`,
      ...overrides,
    ],
  });
  return config.endpoints[0] as OpcUaEndpointConfig;
}

test("defaults: spec §2.4's policy set, Anonymous only, no discovery; certificate files and application URI agree", async () => {
  const log: string[] = [];
  const endpoint = endpointConfig("defaults", []);
  const security = await prepareOpcuaSecurity({ endpoint, hostname: "plant-7", log: (line) => log.push(line) });
  try {
    const options = security.serverOptions;
    assert.deepEqual(options.securityPolicies, [
      SecurityPolicy.None,
      SecurityPolicy.Basic256Sha256,
      SecurityPolicy.Aes128_Sha256_RsaOaep,
      SecurityPolicy.Aes256_Sha256_RsaPss,
    ]);
    assert.deepEqual(options.securityModes, [
      MessageSecurityMode.None,
      MessageSecurityMode.Sign,
      MessageSecurityMode.SignAndEncrypt,
    ]);
    assert.equal(options.allowAnonymous, true);
    assert.equal(options.registerServerMethod, RegisterServerMethod.HIDDEN);
    // Spec §5.1.5: named after the machine host name (no hostname configured; plant-7 is only advertised).
    assert.equal(
      options.certificateFile,
      join(endpoint.serverCertificateBasePath, "private", `Twinport AAS OPC UA Server@${machineHostname()}_2048.der`),
    );
    assert.equal(
      options.privateKeyFile,
      join(endpoint.serverCertificateBasePath, "private", `Twinport AAS OPC UA Server@${machineHostname()}_2048.pem`),
    );
    const certificate = new X509Certificate(readFileSync(options.certificateFile!));
    assert.equal(options.serverInfo?.applicationUri, applicationUriOf(certificate));
    // The default userMap is empty and UserName is off: nobody logs in by name.
    const userManager = options.userManager as { isValidUser(userName: string, password: string): boolean };
    assert.equal(userManager.isValidUser("", ""), false);
    assert.deepEqual(log, [`opcua-gateway: created the server certificate ${options.certificateFile}`]);
  } finally {
    await security.dispose();
  }
});

test("UserName checks userMap exactly; a discovery server URL switches registration on", async () => {
  const endpoint = endpointConfig("users", [
    'endpoints[0].supportedAuthentications=["UserName"]',
    'endpoints[0].userMap={"alice":"wonder","bob":""}',
    "endpoints[0].discoveryServerUrl=opc.tcp://lds.example:4840",
  ]);
  const security = await prepareOpcuaSecurity({ endpoint, hostname: "plant-7", log: () => undefined });
  try {
    const options = security.serverOptions;
    assert.equal(options.allowAnonymous, false);
    assert.equal(options.registerServerMethod, RegisterServerMethod.LDS);
    assert.equal(options.discoveryServerEndpointUrl, "opc.tcp://lds.example:4840");
    const userManager = options.userManager as { isValidUser(userName: string, password: string): boolean };
    assert.equal(userManager.isValidUser("alice", "wonder"), true);
    assert.equal(userManager.isValidUser("alice", "wonder "), false);
    assert.equal(userManager.isValidUser("Alice", "wonder"), false);
    assert.equal(userManager.isValidUser("bob", ""), true);
    assert.equal(userManager.isValidUser("constructor", ""), false);
  } finally {
    await security.dispose();
  }
});

test("UserName or Certificate with NONE as the only policy is reported: no client could use them", async () => {
  const log: string[] = [];
  const endpoint = endpointConfig("none-only", [
    'endpoints[0].supportedAuthentications=["Anonymous","UserName","Certificate"]',
  ]);
  // The configuration loader refuses this pair (opcua-endpoint.ts); an endpoint built another way is still warned about.
  endpoint.supportedSecurityPolicies = ["NONE"];
  const security = await prepareOpcuaSecurity({ endpoint, hostname: "plant-7", log: (line) => log.push(line) });
  await security.dispose();
  assert.deepEqual(security.serverOptions.securityModes, [MessageSecurityMode.None]);
  assert.ok(
    log.includes(
      "opcua-gateway: warning: UserName and Certificate authentication needs a security policy besides NONE in supportedSecurityPolicies; with NONE alone no client can log in that way",
    ),
    log.join("\n"),
  );
});

test("a certificate whose key went missing stops the start with a message naming both files", async () => {
  // A configured hostname names the files (replicas sharing one mounted certificate set the same).
  const endpoint = endpointConfig("lost-key", ["endpoints[0].hostname=plant-7"]);
  const first = await prepareOpcuaSecurity({ endpoint, hostname: "plant-7", log: () => undefined });
  await first.dispose();
  rmSync(first.serverOptions.privateKeyFile!);
  await assert.rejects(
    prepareOpcuaSecurity({ endpoint, hostname: "plant-7", log: () => undefined }),
    /certificate ".*plant-7_2048\.der" is present but its private key ".*plant-7_2048\.pem" is missing/,
  );
});

test("replicas creating the server certificate in one PKI folder at once end up with one, made by one of them", async () => {
  const endpoint = endpointConfig("replicas", []);
  const files = serverCertificateFiles(endpoint.serverCertificateBasePath, "plant-7");
  const managers = [1, 2, 3].map(
    () =>
      new SpecLayoutCertificateManager({
        base: endpoint.serverCertificateBasePath,
        kind: "server",
        privateKeyFile: files.privateKeyFile,
      }),
  );
  try {
    for (const manager of managers) await manager.open();
    // Every replica has opened its store and found no certificate: all three ask for one at once.
    const results = await Promise.all(
      managers.map((manager) => ensureServerCertificate(manager, files, { hostname: "plant-7", host: "0.0.0.0" })),
    );
    assert.deepEqual(results.map((result) => result.created).sort(), [false, false, true]);
    const onDisk = new X509Certificate(readFileSync(files.certificateFile));
    for (const result of results) assert.equal(result.applicationUri, applicationUriOf(onDisk));
    assert.ok(onDisk.checkPrivateKey(createPrivateKey(readFileSync(files.privateKeyFile))));
  } finally {
    await Promise.all(managers.map((manager) => manager.dispose()));
  }
});
