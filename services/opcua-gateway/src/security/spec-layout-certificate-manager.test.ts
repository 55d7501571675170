import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, before, test } from "node:test";

// node-opcua falls back to $XDG_CONFIG_HOME for anything not given a folder: prove nothing lands there.
const dir = mkdtempSync(join(tmpdir(), "twinport-pki-"));
const xdg = join(dir, "xdg");
process.env.XDG_CONFIG_HOME = xdg;

const { extractFullyQualifiedDomainName, OPCUACertificateManager, StatusCodes } = await import("node-opcua");
const { SpecLayoutCertificateManager } = await import("./spec-layout-certificate-manager.ts");
const { applicationUriOf, assertServerKeyPresent, ensureServerCertificate, serverCertificateFiles } = await import(
  "./server-certificate.ts"
);
type SpecLayoutCertificateManager = import("./spec-layout-certificate-manager.ts").SpecLayoutCertificateManager;

/** A peer's certificate and key, made by a plain node-opcua store (its own layout, its own folder). */
const peerStore = new OPCUACertificateManager({
  rootFolder: join(dir, "peer"),
  automaticallyAcceptUnknownCertificate: true,
});
let peerCertificate: Buffer;
let peerCertificatePem: string;

const opened: SpecLayoutCertificateManager[] = [];
async function open(
  options: ConstructorParameters<typeof SpecLayoutCertificateManager>[0],
): Promise<SpecLayoutCertificateManager> {
  const manager = new SpecLayoutCertificateManager(options);
  opened.push(manager);
  await manager.open();
  return manager;
}

before(async () => {
  await peerStore.initialize();
  const pemFile = join(dir, "peer-certificate.pem");
  await peerStore.createSelfSignedCertificate({
    applicationUri: "urn:peer:operator-made",
    subject: "/CN=Operator Made/O=Somewhere",
    dns: ["peer.example"],
    startDate: new Date(),
    validity: 30,
    outputFile: pemFile,
  });
  peerCertificatePem = readFileSync(pemFile, "utf8");
  peerCertificate = Buffer.from(new X509Certificate(peerCertificatePem).raw);
});

after(async () => {
  await Promise.allSettled(opened.map((manager) => manager.dispose()));
  await peerStore.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** Every folder and file under `base`, relative, sorted. */
function tree(base: string): string[] {
  const entries: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      entries.push(relative(base, path) + (entry.isDirectory() ? "/" : ""));
      if (entry.isDirectory()) walk(path);
    }
  };
  walk(base);
  return entries.sort();
}

test("server PKI: exactly the folders of spec §5.1, the key in private/, nothing of node-opcua's own layout", async () => {
  const base = join(dir, "layout", "PKI", "CA");
  const files = serverCertificateFiles(base, "gateway.example");
  await open({ base, kind: "server", privateKeyFile: files.privateKeyFile });
  const entries = tree(base);
  assert.deepEqual(
    entries.filter((entry) => entry.endsWith("/")),
    ["certs/", "crl/", "issuers/", "issuers/certs/", "issuers/crl/", "issuers/rejected/", "private/", "rejected/"],
  );
  // Besides the key, only node-opcua's lock anchor (an empty file; the lock itself is a transient mutex.lock/).
  assert.deepEqual(
    entries.filter((entry) => !entry.endsWith("/") && entry !== "mutex"),
    ["private/Twinport AAS OPC UA Server@gateway.example_2048.pem"],
  );
  assert.match(readFileSync(files.privateKeyFile, "utf8"), /^-----BEGIN (RSA )?PRIVATE KEY-----/);
  assert.deepEqual(existsSync(xdg) ? readdirSync(xdg) : [], []);
});

test("user PKI: the same folders without private/, and no key on disk", async () => {
  const base = join(dir, "layout", "USERS_PKI", "CA");
  await open({ base, kind: "user" });
  assert.deepEqual(
    tree(base).filter((entry) => entry !== "mutex"),
    ["certs/", "crl/", "issuers/", "issuers/certs/", "issuers/crl/", "issuers/rejected/", "rejected/"],
  );
});

for (const kind of ["server", "user"] as const) {
  test(`${kind} PKI: an unknown certificate is refused and filed in rejected/; moved to certs/ it is trusted at the next check, removed it is not`, async () => {
    const base = join(dir, `trust-${kind}`, "CA");
    const manager = await open({
      base,
      kind,
      privateKeyFile: kind === "server" ? join(base, "private", "key.pem") : undefined,
    });

    assert.equal((await manager.checkCertificate(peerCertificate)).name, StatusCodes.BadCertificateUntrusted.name);
    const rejected = readdirSync(join(base, "rejected"));
    assert.equal(rejected.length, 1, `rejected/ holds ${rejected.join(", ")}`);
    assert.equal(readdirSync(join(base, "certs")).length, 0);

    // No waiting for a file watcher: the very next verification sees the move.
    renameSync(join(base, "rejected", rejected[0]!), join(base, "certs", rejected[0]!));
    assert.equal((await manager.checkCertificate(peerCertificate)).name, "Good");
    assert.deepEqual(readdirSync(join(base, "rejected")), []);

    // Taken out of certs/, the trust ends at the next verification, and the certificate is filed again.
    rmSync(join(base, "certs", rejected[0]!));
    assert.equal((await manager.checkCertificate(peerCertificate)).name, StatusCodes.BadCertificateUntrusted.name);
    assert.equal(readdirSync(join(base, "rejected")).length, 1);
  });
}

test("concurrent verifications after a change share one rescan and agree", async () => {
  const base = join(dir, "concurrent", "CA");
  const manager = await open({ base, kind: "user" });
  writeFileSync(join(base, "certs", "peer.pem"), peerCertificatePem);
  const verdicts = await Promise.all(Array.from({ length: 20 }, () => manager.checkCertificate(peerCertificate)));
  assert.deepEqual(new Set(verdicts.map((verdict) => verdict.name)), new Set(["Good"]));
});

test("a certificate rewritten in place under the same name is read again", async () => {
  const base = join(dir, "rewritten", "CA");
  const manager = await open({ base, kind: "user" });
  const other = join(dir, "other-certificate.pem");
  await peerStore.createSelfSignedCertificate({
    applicationUri: "urn:peer:other",
    subject: "/CN=Other",
    dns: [],
    startDate: new Date(),
    validity: 30,
    outputFile: other,
  });
  const otherCertificate = Buffer.from(new X509Certificate(readFileSync(other)).raw);
  writeFileSync(join(base, "certs", "peer.pem"), peerCertificatePem);
  assert.equal((await manager.checkCertificate(peerCertificate)).name, "Good");
  // Same file name, other content (and size): the old certificate is no longer trusted.
  writeFileSync(join(base, "certs", "peer.pem"), readFileSync(other, "utf8"));
  assert.equal((await manager.checkCertificate(otherCertificate)).name, "Good");
  assert.equal((await manager.checkCertificate(peerCertificate)).name, StatusCodes.BadCertificateUntrusted.name);
});

test("user PKI with Certificate authentication off: every user certificate is refused, none filed for trusting", async () => {
  const base = join(dir, "refuse-all", "CA");
  const manager = await open({ base, kind: "user", refuseAll: true });
  // Even one an operator put into certs/.
  writeFileSync(join(base, "certs", "peer.pem"), peerCertificatePem);
  await manager.reloadCertificates();
  assert.equal((await manager.checkCertificate(peerCertificate)).name, StatusCodes.BadCertificateUseNotAllowed.name);
  assert.deepEqual(readdirSync(join(base, "rejected")), []);
});

test("server certificate: created when missing as DER, RSA 2048, SAN with host name, bind IP, the machine's names, localhost and 127.0.0.1", async () => {
  const base = join(dir, "create", "PKI", "CA");
  const files = serverCertificateFiles(base, "gateway.example");
  assert.equal(files.certificateFile, join(base, "private", "Twinport AAS OPC UA Server@gateway.example_2048.der"));
  assert.equal(files.privateKeyFile, join(base, "private", "Twinport AAS OPC UA Server@gateway.example_2048.pem"));
  const manager = await open({ base, kind: "server", privateKeyFile: files.privateKeyFile });

  const created = await ensureServerCertificate(manager, files, { hostname: "gateway.example", host: "10.1.2.3" });
  assert.equal(created.created, true);
  const der = readFileSync(files.certificateFile);
  assert.equal(der[0], 0x30, "DER, not PEM");
  const certificate = new X509Certificate(der);
  assert.equal(certificate.publicKey.asymmetricKeyDetails?.modulusLength, 2048);
  assert.ok(
    certificate.checkPrivateKey(
      await import("node:crypto").then(({ createPrivateKey }) => createPrivateKey(readFileSync(files.privateKeyFile))),
    ),
  );
  assert.match(certificate.subject, /CN=Twinport AAS OPC UA Server@gateway\.example/);
  const san = certificate.subjectAltName ?? "";
  for (const name of [
    "DNS:gateway.example",
    "IP Address:10.1.2.3",
    "IP Address:127.0.0.1",
    "DNS:localhost",
    // What node-opcua's start-up check W26 looks for whatever the endpoint advertises.
    `DNS:${hostname()}`,
    `DNS:${await extractFullyQualifiedDomainName()}`,
    `URI:${created.applicationUri}`,
  ])
    assert.ok(san.includes(name), `${name} in ${san}`);
  assert.ok(certificate.checkHost("gateway.example"));

  // A second start finds both files and changes nothing.
  const again = await ensureServerCertificate(manager, files, { hostname: "gateway.example", host: "10.1.2.3" });
  assert.deepEqual(again, { applicationUri: created.applicationUri, created: false });
  assert.deepEqual(readFileSync(files.certificateFile), der);
});

test("server certificate: an operator's pair is used as it is, and its application URI announced", async () => {
  const base = join(dir, "present", "PKI", "CA");
  const files = serverCertificateFiles(base, "replica-set");
  const manager = new SpecLayoutCertificateManager({ base, kind: "server", privateKeyFile: files.privateKeyFile });
  opened.push(manager);
  writeFileSync(files.certificateFile, peerCertificate);
  copyFileSync(peerStore.privateKey, files.privateKeyFile);
  assertServerKeyPresent(files);
  await manager.open();

  const result = await ensureServerCertificate(manager, files, { hostname: "replica-set", host: "0.0.0.0" });
  assert.deepEqual(result, { applicationUri: "urn:peer:operator-made", created: false });
  assert.deepEqual(readFileSync(files.certificateFile), peerCertificate);
  assert.equal(readFileSync(files.privateKeyFile, "utf8"), readFileSync(peerStore.privateKey, "utf8"));
  assert.equal(applicationUriOf(new X509Certificate(peerCertificatePem)), "urn:peer:operator-made");
});

test("server certificate: one an earlier Twinport made without the machine's names is replaced, same key, file and application URI", async () => {
  const base = join(dir, "earlier", "PKI", "CA");
  const files = serverCertificateFiles(base, "127.0.0.1");
  const manager = await open({ base, kind: "server", privateKeyFile: files.privateKeyFile });
  // What versions before issue 14 wrote for `host: 127.0.0.1` and no hostname: the IP alone.
  const pem = join(dir, "earlier", "old.pem");
  await manager.createSelfSignedCertificate({
    applicationUri: "urn:127.0.0.1:Twinport:AAS-OPC-UA-Server",
    dns: [],
    ip: ["127.0.0.1"],
    subject: "/CN=Twinport AAS OPC UA Server@127.0.0.1/O=Twinport",
    startDate: new Date(),
    validity: 365,
    outputFile: pem,
  });
  const old = new X509Certificate(readFileSync(pem));
  writeFileSync(files.certificateFile, old.raw);

  const result = await ensureServerCertificate(manager, files, { hostname: "127.0.0.1", host: "127.0.0.1" });
  assert.equal(result.applicationUri, "urn:127.0.0.1:Twinport:AAS-OPC-UA-Server");
  assert.equal(result.created, false);
  assert.ok(result.replaced?.includes(hostname()), `${result.replaced} names ${hostname()}`);
  const renewed = new X509Certificate(readFileSync(files.certificateFile));
  assert.notEqual(renewed.fingerprint256, old.fingerprint256);
  assert.equal(
    renewed.publicKey.export({ format: "pem", type: "spki" }),
    old.publicKey.export({ format: "pem", type: "spki" }),
  );
  for (const name of [`DNS:${hostname()}`, "DNS:localhost", "IP Address:127.0.0.1"])
    assert.ok(renewed.subjectAltName?.includes(name), `${name} in ${renewed.subjectAltName}`);
  // Once complete it stays: the next start leaves the file alone.
  const again = await ensureServerCertificate(manager, files, { hostname: "127.0.0.1", host: "127.0.0.1" });
  assert.equal(again.replaced, undefined);
  assert.deepEqual(readFileSync(files.certificateFile), renewed.raw);
});

test("server certificate: with a configured hostname the machine's own name is no reason to replace (replicas differ in it)", async () => {
  const base = join(dir, "configured", "PKI", "CA");
  const files = serverCertificateFiles(base, "gateway.example");
  const manager = await open({ base, kind: "server", privateKeyFile: files.privateKeyFile });
  const pem = join(dir, "configured", "other-replica.pem");
  await manager.createSelfSignedCertificate({
    applicationUri: "urn:gateway.example:Twinport:AAS-OPC-UA-Server",
    dns: ["gateway.example", "another-container", "localhost"],
    ip: ["127.0.0.1"],
    subject: "/CN=Twinport AAS OPC UA Server@gateway.example/O=Twinport",
    startDate: new Date(),
    validity: 365,
    outputFile: pem,
  });
  const made = new X509Certificate(readFileSync(pem)).raw;
  writeFileSync(files.certificateFile, made);
  const result = await ensureServerCertificate(manager, files, {
    hostname: "gateway.example",
    host: "0.0.0.0",
    hostnameConfigured: true,
  });
  assert.equal(result.replaced, undefined);
  assert.deepEqual(readFileSync(files.certificateFile), made);
});

test("server certificate: a certificate without its key, or with another key, is a clear error", async () => {
  const base = join(dir, "broken", "PKI", "CA");
  const files = serverCertificateFiles(base, "host");
  const manager = await open({ base, kind: "server", privateKeyFile: files.privateKeyFile }); // generates a key of its own
  writeFileSync(files.certificateFile, peerCertificate);
  await assert.rejects(
    ensureServerCertificate(manager, files, { hostname: "host", host: "127.0.0.1" }),
    /does not belong to the private key/,
  );
  rmSync(files.privateKeyFile);
  assert.throws(() => assertServerKeyPresent(files), /is present but its private key ".*_2048\.pem" is missing/);
});
