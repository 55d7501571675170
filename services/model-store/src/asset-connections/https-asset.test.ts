import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, test } from "node:test";
import type { TLSSocket } from "node:tls";
import { ASSET_TEST_MODEL, DRIVE_SUBMODEL_ID } from "../../../../tests/test-support/asset-peers.ts";
import {
  opensslCertificate,
  opensslIssuedCertificate,
  opensslPkcs12,
} from "../../../../tests/test-support/openssl-keystores.ts";
import { freePort } from "../../../../tests/test-support/servers.ts";
import { type RunningAssetConnections, startAssetConnections } from "./start-asset-connections.ts";
import { assetConnectionsConfig, startTestStore, type TestStore, until } from "./test-support/asset-connections.ts";

const dir = mkdtempSync(join(tmpdir(), "twinport-https-asset-"));
let server: Server;
let url: string;
let sut: TestStore;
let running: RunningAssetConnections | undefined;
/** Trust stores made by openssl as keytool users make them: the device's CA only, legacy ciphers; the device's own keystore, current ciphers. */
let legacyCaTrustStore: string;
let deviceKeyStore: string;

before(async () => {
  // The device: an EC certificate for 127.0.0.1 issued by a private CA.
  const ca = opensslCertificate(dir, "device-ca", "rsa", { ca: true });
  const device = opensslIssuedCertificate(dir, "device", ca, "ec");
  legacyCaTrustStore = opensslPkcs12(join(dir, "ca-trust.p12"), ca, {
    storePassword: "changeit",
    certificatesOnly: true,
    legacy: true,
  });
  deviceKeyStore = opensslPkcs12(join(dir, "device.p12"), device, {
    storePassword: "changeit",
    extraCertificates: [ca],
  });
  const port = await freePort();
  server = createServer({ key: device.key, cert: device.cert }, (_request, response) => {
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
      subscriptionProviders: {
        [`(Submodel)${DRIVE_SUBMODEL_ID}, (Property)Temperature`]: {
          format: "JSON",
          path: "/",
          query: "$.temperature",
          interval: 100,
        },
      },
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

test("an HTTPS asset with a private CA is refused unless trustedCertificates holds the CA or its certificate", async () => {
  const untrusted = await start({});
  await until(() => untrusted.status()[0]!.failingProviders.length === 1, "the certificate failure");
  assert.match(untrusted.status()[0]!.failingProviders[0]!.error, /local issuer|verify the first certificate/i);
  await running!.stop();
  running = undefined;
  await sut.close();

  for (const trustStore of [legacyCaTrustStore, deviceKeyStore]) {
    await start({
      trustedCertificates: { keyStoreType: "PKCS12", keyStorePath: trustStore, keyStorePassword: "changeit" },
    });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Temperature", (e) => e.value === "36.6");
    await running!.stop();
    running = undefined;
    await sut.close();
  }
});

test("a wrong trust store password stops the connection's start with the setting to fix", async () => {
  await assert.rejects(
    start({ trustedCertificates: { keyStorePath: legacyCaTrustStore, keyStorePassword: "wrong" } }),
    /wrong keystore password \(assetConnections\[0\]\.trustedCertificates\.keyStorePassword\)/,
  );
});

test("a JKS trust store is refused with the command that converts it", async () => {
  await assert.rejects(
    start({ trustedCertificates: { keyStoreType: "JKS", keyStorePath: legacyCaTrustStore } }),
    /keyStoreType "JKS" is not supported; use PKCS12 \(convert a JKS store with: keytool -importkeystore/,
  );
});

test("an HTTPS asset that requires a client certificate: refused without clientCertificate, served with it (issue 18.7)", async () => {
  const clientCa = opensslCertificate(dir, "client-ca", "rsa", { ca: true });
  const client = opensslIssuedCertificate(dir, "aas-client", clientCa, "ec");
  const clientKeyStore = opensslPkcs12(join(dir, "aas-client.p12"), client, { storePassword: "changeit" });
  const deviceCa = opensslCertificate(dir, "mtls-ca", "rsa", { ca: true });
  const device = opensslIssuedCertificate(dir, "mtls-device", deviceCa);
  const port = await freePort();
  const seen: unknown[] = [];
  const mutual = createServer(
    { key: device.key, cert: device.cert, ca: clientCa.cert, requestCert: true, rejectUnauthorized: true },
    (request, response) => {
      seen.push((request.socket as TLSSocket).getPeerCertificate().subject?.CN);
      response.writeHead(200, { "Content-Type": "application/json" });
      response.end('{"temperature": 37.5}');
    },
  );
  await new Promise<void>((resolve) => mutual.listen(port, "127.0.0.1", resolve));
  const trust = { keyStoreType: "PEM", keyStorePath: deviceCa.certFile };
  try {
    const without = await start({ baseUrl: `https://127.0.0.1:${port}`, trustedCertificates: trust });
    await until(() => without.status()[0]!.failingProviders.length === 1, "the handshake refusal");
    assert.equal(seen.length, 0, "no request got through without a client certificate");
    await running!.stop();
    running = undefined;
    await sut.close();

    await start({
      baseUrl: `https://127.0.0.1:${port}`,
      trustedCertificates: trust,
      clientCertificate: { keyStoreType: "PKCS12", keyStorePath: clientKeyStore, keyStorePassword: "changeit" },
    });
    await sut.waitForElement(DRIVE_SUBMODEL_ID, "Temperature", (e) => e.value === "37.5");
    assert.equal(seen[0], "aas-client");
  } finally {
    mutual.closeAllConnections();
    await new Promise((resolve) => mutual.close(resolve));
  }
});
