import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, test } from "node:test";
import forge from "node-forge";
import { ASSET_TEST_MODEL, DRIVE_SUBMODEL_ID } from "../../../../tests/test-support/asset-peers.ts";
import { freePort } from "../../../../tests/test-support/servers.ts";
import { startAssetConnections, type RunningAssetConnections } from "./start-asset-connections.ts";
import { assetConnectionsConfig, startTestStore, until, type TestStore } from "./test-support/asset-connections.ts";

const dir = mkdtempSync(join(tmpdir(), "twinport-https-asset-"));
let server: Server;
let url: string;
let sut: TestStore;
let running: RunningAssetConnections | undefined;

/** A self-signed certificate for 127.0.0.1, and a PKCS12 trust store holding only it (as keytool makes them). */
function selfSigned(): { key: string; cert: string; trustStore: string } {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: "spki", format: "pem" }).toString());
  certificate.serialNumber = "01";
  certificate.validity.notBefore = new Date(Date.now() - 60_000);
  certificate.validity.notAfter = new Date(Date.now() + 86_400_000);
  const name = [{ name: "commonName", value: "test device" }];
  certificate.setSubject(name);
  certificate.setIssuer(name);
  certificate.setExtensions([{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] }]);
  const key = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  certificate.sign(forge.pki.privateKeyFromPem(key), forge.md.sha256.create());
  const store = forge.pkcs12.toPkcs12Asn1(null, [certificate], "changeit", { algorithm: "3des" });
  const trustStore = join(dir, "trusted.p12");
  writeFileSync(trustStore, Buffer.from(forge.asn1.toDer(store).getBytes(), "binary"));
  return { key, cert: forge.pki.certificateToPem(certificate), trustStore };
}

let trustStore: string;

before(async () => {
  const credentials = selfSigned();
  trustStore = credentials.trustStore;
  const port = await freePort();
  server = createServer({ key: credentials.key, cert: credentials.cert }, (_request, response) => {
    response.writeHead(200, { "Content-Type": "application/json" });
    response.end('{"temperature": 36.6}');
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${port}`;
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
  await sut?.close();
});
after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

async function start(extra: Record<string, unknown>): Promise<RunningAssetConnections> {
  sut = await startTestStore(ASSET_TEST_MODEL);
  running = await startAssetConnections({
    connections: assetConnectionsConfig({
      "@class": "assetconnection.http.HttpAssetConnection",
      baseUrl: url,
      subscriptionProviders: { [`(Submodel)${DRIVE_SUBMODEL_ID}, (Property)Temperature`]: { format: "JSON", path: "/", query: "$.temperature", interval: 100 } },
      ...extra,
    }),
    store: sut.store,
    bus: sut.bus,
    operationProviders: sut.registry,
    retryIntervalMs: 100,
    readTimeoutMs: 1000,
    log: () => {},
  });
  return running;
}

test("a self-signed HTTPS asset is refused unless trustedCertificates holds its certificate", async () => {
  const untrusted = await start({});
  await until(() => untrusted.status()[0]!.failingProviders.length === 1, "the certificate failure");
  assert.match(untrusted.status()[0]!.failingProviders[0]!.error, /self[- ]signed/i);
  await running!.stop();
  running = undefined;
  await sut.close();

  await start({ trustedCertificates: { keyStoreType: "PKCS12", keyStorePath: trustStore, keyStorePassword: "changeit" } });
  await sut.waitForElement(DRIVE_SUBMODEL_ID, "Temperature", (e) => e.value === "36.6");
});

test("a JKS trust store is refused with the command that converts it", async () => {
  await assert.rejects(start({ trustedCertificates: { keyStoreType: "JKS", keyStorePath: trustStore } }), /keyStoreType "JKS" is not supported; use PKCS12 \(convert a JKS store with: keytool -importkeystore/);
});
