// Issue 14 item 8: the server certificate a real client receives names the host names and addresses
// the endpoint advertises and the machine's own (node-opcua's W26 start-up check), in both modes,
// and a certificate an earlier Twinport made without them is replaced at start-up.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { extractFullyQualifiedDomainName, OPCUACertificateManager, OPCUAClient } from "node-opcua";
import { freePort, startNats, startRedis } from "./test-support/servers.ts";
import { startTwinport, type TwinportProcess } from "./test-support/system.ts";

const dirs: string[] = [];
const tempDir = (role: string) => {
  const dir = mkdtempSync(join(tmpdir(), `twinport-certificate-${role}-`));
  dirs.push(dir);
  return dir;
};
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const opcuaEndpoint = (tcpPort: number, extra: Record<string, unknown> = {}) => ({
  "@class": "endpoint.opcua.OpcUaEndpoint",
  tcpPort,
  host: "127.0.0.1",
  secondsTillShutdown: 0,
  ...extra,
});

/** The certificate in the endpoint descriptions a real client gets from GetEndpoints. */
async function servedCertificate(url: string): Promise<X509Certificate> {
  const clientCertificateManager = new OPCUACertificateManager({ rootFolder: join(tempDir("client"), "PKI") });
  const client = OPCUAClient.create({
    endpointMustExist: false,
    clientCertificateManager,
    connectionStrategy: { maxRetry: 0 },
  });
  await client.connect(url);
  try {
    const endpoints = await client.getEndpoints();
    assert.ok(endpoints.length > 0);
    const certificates = new Set(endpoints.map((endpoint) => endpoint.serverCertificate?.toString("base64")));
    assert.equal(certificates.size, 1, "every endpoint description carries the one server certificate");
    return new X509Certificate(endpoints[0]!.serverCertificate!);
  } finally {
    await client.disconnect();
  }
}

/** What the process wrote to stdout and stderr (node-opcua's warnings go through our logger). */
function output(process: TwinportProcess, cwd: string): string {
  return [process.logFile, join(cwd, `${process.role}.out`)].map((file) => readFileSync(file, "utf8")).join("\n");
}

async function assertMachineNamesCovered(certificate: X509Certificate, extra: string[]) {
  const san = certificate.subjectAltName ?? "";
  for (const name of [
    `DNS:${hostname()}`,
    `DNS:${await extractFullyQualifiedDomainName()}`,
    "DNS:localhost",
    "IP Address:127.0.0.1",
    ...extra,
  ])
    assert.ok(san.includes(name), `${name} in ${san}`);
}

test("embedded: the served certificate names the advertised host, the machine and localhost; no W26 at start-up", async () => {
  const cwd = tempDir("embedded");
  const port = await freePort();
  writeFileSync(
    join(cwd, "config.json"),
    JSON.stringify({ endpoints: [opcuaEndpoint(port, { hostname: "opcua.twinport.test" })] }),
  );
  const twinport = await startTwinport({ role: "embedded", cwd, args: ["-c", "config.json"] });
  try {
    const url = (twinport.details.opcua as string[])[0]!;
    assert.match(url, /opcua\.twinport\.test/);
    // The client connects by IP; the advertised name is in the URL, not resolvable here.
    const certificate = await servedCertificate(`opc.tcp://127.0.0.1:${port}`);
    await assertMachineNamesCovered(certificate, ["DNS:opcua.twinport.test"]);
    // Spec §5.1's file name is kept: the served certificate is the file.
    const file = join(cwd, "PKI", "CA", "private", "Twinport AAS OPC UA Server@opcua.twinport.test_2048.der");
    assert.deepEqual(readFileSync(file), certificate.raw);
    assert.doesNotMatch(output(twinport, cwd), /NODE-OPCUA-W26/);
  } finally {
    await twinport.stop();
  }
});

test("embedded: a certificate an earlier Twinport made (IP only) is replaced with the same key; no W26", async () => {
  const cwd = tempDir("embedded-upgrade");
  const port = await freePort();
  writeFileSync(join(cwd, "config.json"), JSON.stringify({ endpoints: [opcuaEndpoint(port)] }));
  // First start makes key and certificate; then the certificate is swapped for one as versions
  // before issue 14 wrote it (SAN: 127.0.0.1 only), signed with the same key.
  const first = await startTwinport({ role: "embedded", cwd, args: ["-c", "config.json"] });
  await first.stop();
  const privateDir = join(cwd, "PKI", "CA", "private");
  // Spec §5.1.5's name: the machine host name, not the bind address.
  const certificateFile = join(privateDir, `Twinport AAS OPC UA Server@${hostname()}_2048.der`);
  const scratch = tempDir("old-certificate");
  const manager = new OPCUACertificateManager({ rootFolder: join(scratch, "PKI") });
  // node-opcua's store signs with its own key, read when it opens: ours is put there first.
  mkdirSync(dirname(manager.privateKey), { recursive: true });
  writeFileSync(
    manager.privateKey,
    readFileSync(join(privateDir, `Twinport AAS OPC UA Server@${hostname()}_2048.pem`)),
  );
  await manager.initialize();
  mkdirSync(join(scratch, "out"));
  const pem = join(scratch, "out", "old.pem");
  await manager.createSelfSignedCertificate({
    applicationUri: "urn:127.0.0.1:Twinport:AAS-OPC-UA-Server",
    dns: [],
    ip: ["127.0.0.1"],
    subject: "/CN=Twinport AAS OPC UA Server@127.0.0.1/O=Twinport",
    startDate: new Date(),
    validity: 365,
    outputFile: pem,
  });
  await manager.dispose();
  const old = new X509Certificate(readFileSync(pem));
  writeFileSync(certificateFile, old.raw);

  const twinport = await startTwinport({ role: "embedded", cwd, args: ["-c", "config.json"] });
  try {
    const certificate = await servedCertificate(`opc.tcp://127.0.0.1:${port}`);
    assert.notEqual(certificate.fingerprint256, old.fingerprint256);
    assert.equal(
      certificate.publicKey.export({ format: "pem", type: "spki" }),
      old.publicKey.export({ format: "pem", type: "spki" }),
    );
    await assertMachineNamesCovered(certificate, []);
    const log = output(twinport, cwd);
    assert.match(log, /replaced the server certificate .* lacked/);
    assert.doesNotMatch(log, /NODE-OPCUA-W26/);
  } finally {
    await twinport.stop();
  }
});

/** A certificate and key an operator brings (not made by Twinport), covering this machine's names. */
async function operatorCertificate(): Promise<{ der: Buffer; key: Buffer }> {
  const scratch = tempDir("operator-certificate");
  const manager = new OPCUACertificateManager({ rootFolder: join(scratch, "PKI") });
  await manager.initialize();
  mkdirSync(join(scratch, "out"));
  const pem = join(scratch, "out", "own.pem");
  await manager.createSelfSignedCertificate({
    applicationUri: "urn:plant:opcua:server",
    dns: [hostname(), await extractFullyQualifiedDomainName(), "localhost"],
    ip: ["127.0.0.1"],
    subject: "/CN=Plant OPC UA Server/O=Plant",
    startDate: new Date(),
    validity: 365,
    outputFile: pem,
  });
  const key = readFileSync(manager.privateKey);
  await manager.dispose();
  return { der: Buffer.from(new X509Certificate(readFileSync(pem)).raw), key };
}

test("embedded: a certificate placed as spec §5.1.5 says (…@{machine host name}_2048.der/.pem) is the one served, whatever the bind address", async () => {
  const cwd = tempDir("embedded-own");
  const port = await freePort();
  writeFileSync(join(cwd, "config.json"), JSON.stringify({ endpoints: [opcuaEndpoint(port)] }));
  const privateDir = join(cwd, "PKI", "CA", "private");
  mkdirSync(privateDir, { recursive: true });
  const own = await operatorCertificate();
  writeFileSync(join(privateDir, `Twinport AAS OPC UA Server@${hostname()}_2048.der`), own.der);
  writeFileSync(join(privateDir, `Twinport AAS OPC UA Server@${hostname()}_2048.pem`), own.key);
  const twinport = await startTwinport({ role: "embedded", cwd, args: ["-c", "config.json"] });
  try {
    const served = await servedCertificate(`opc.tcp://127.0.0.1:${port}`);
    assert.ok(Buffer.from(served.raw).equals(own.der), "the operator's certificate, not a new one");
    assert.doesNotMatch(output(twinport, cwd), /created the server certificate/);
  } finally {
    await twinport.stop();
  }
});

test("embedded: a pair an earlier Twinport named after the bind address (…@127.0.0.1) is still used after the upgrade", async () => {
  const cwd = tempDir("embedded-earlier-name");
  const port = await freePort();
  writeFileSync(join(cwd, "config.json"), JSON.stringify({ endpoints: [opcuaEndpoint(port)] }));
  const first = await startTwinport({ role: "embedded", cwd, args: ["-c", "config.json"] });
  await first.stop();
  const privateDir = join(cwd, "PKI", "CA", "private");
  const made = readFileSync(join(privateDir, `Twinport AAS OPC UA Server@${hostname()}_2048.der`));
  for (const extension of ["der", "pem"])
    renameSync(
      join(privateDir, `Twinport AAS OPC UA Server@${hostname()}_2048.${extension}`),
      join(privateDir, `Twinport AAS OPC UA Server@127.0.0.1_2048.${extension}`),
    );
  const twinport = await startTwinport({ role: "embedded", cwd, args: ["-c", "config.json"] });
  try {
    const served = await servedCertificate(`opc.tcp://127.0.0.1:${port}`);
    assert.ok(Buffer.from(served.raw).equals(made), "the certificate clients already trust");
    // The first start's line only (both starts log into the same folder).
    assert.equal(output(twinport, cwd).match(/created the server certificate/g)?.length, 1);
  } finally {
    await twinport.stop();
  }
});

test("distributed: the opcua-gateway's served certificate names the advertised host and the machine; no W26", async () => {
  const [redis, nats] = await Promise.all([startRedis(), startNats()]);
  const env = { TWINPORT_PERSISTENCE_URL: redis.url, TWINPORT_MESSAGEBUS_URL: nats.url };
  const processes: TwinportProcess[] = [];
  try {
    const storeDir = tempDir("model-store");
    writeFileSync(join(storeDir, "config.json"), "{}");
    processes.push(await startTwinport({ role: "model-store", cwd: storeDir, args: ["-c", "config.json"], env }));
    const cwd = tempDir("opcua-gateway");
    const port = await freePort();
    writeFileSync(
      join(cwd, "config.json"),
      JSON.stringify({ endpoints: [opcuaEndpoint(port, { hostname: "opcua.twinport.test" })] }),
    );
    const gateway = await startTwinport({ role: "opcua-gateway", cwd, args: ["-c", "config.json"], env });
    processes.push(gateway);
    const certificate = await servedCertificate(`opc.tcp://127.0.0.1:${port}`);
    await assertMachineNamesCovered(certificate, ["DNS:opcua.twinport.test"]);
    assert.doesNotMatch(output(gateway, cwd), /NODE-OPCUA-W26/);
  } finally {
    await Promise.all(processes.map((process) => process.stop()));
    await redis.stop();
    await nats.stop();
  }
});
