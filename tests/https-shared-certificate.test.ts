/**
 * A scaled first start (compose's `--scale http-gateway=3`): three real http-gateway processes
 * start at once on one empty state folder. Each must present the same self-signed certificate over
 * TLS, and it must be the one on disk, so clients that trust that file can reach every replica.
 */
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { connect } from "node:tls";
import { freePort, type RunningServer, startNats } from "./test-support/servers.ts";
import { startTwinport, type TwinportProcess } from "./test-support/system.ts";

const REPLICAS = 3;
let nats: RunningServer;
let stateDir: string;
const dirs: string[] = [];
const gateways: { process: TwinportProcess; port: number }[] = [];

before(async () => {
  nats = await startNats();
  stateDir = mkdtempSync(join(tmpdir(), "twinport-shared-state-"));
  dirs.push(stateDir);
  const starts = Array.from({ length: REPLICAS }, async () => {
    const port = await freePort();
    const cwd = mkdtempSync(join(tmpdir(), "twinport-http-gateway-"));
    dirs.push(cwd);
    const config = {
      core: { stateDir },
      endpoints: [{ "@class": "endpoint.http.HttpEndpoint", port, host: "127.0.0.1", sslEnabled: true }],
    };
    writeFileSync(join(cwd, "config.json"), JSON.stringify(config));
    // All at once, as containers of one scaled service start: none finds a certificate on disk.
    const process = await startTwinport({
      role: "http-gateway",
      cwd,
      args: ["-c", "config.json"],
      env: { TWINPORT_MESSAGEBUS_URL: nats.url },
      timeoutMs: 90_000,
    });
    gateways.push({ process, port });
  });
  const results = await Promise.allSettled(starts);
  const failed = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
  if (failed) throw failed.reason;
});

after(async () => {
  await Promise.all(gateways.map((gateway) => gateway.process.stop()));
  await nats?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The certificate the server at `port` presents in a real TLS handshake. */
function presentedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    // Not verified here on purpose: the point is which certificate each replica sends.
    const socket = connect({ host: "127.0.0.1", port, servername: "localhost", rejectUnauthorized: false }, () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fingerprint);
    });
    socket.on("error", reject);
  });
}

test("three http-gateways started together on one empty state folder present one certificate, the one on disk", async () => {
  assert.equal(gateways.length, REPLICAS);
  const onDisk = new X509Certificate(readFileSync(join(stateDir, "https-self-signed-cert.pem"))).fingerprint256;
  const presented = await Promise.all(gateways.map((gateway) => presentedFingerprint(gateway.port)));
  assert.deepEqual(presented, Array(REPLICAS).fill(onDisk), "every replica presents the certificate on disk");
  assert.deepEqual(
    readdirSync(stateDir)
      .filter((name) => name.startsWith("https-"))
      .sort(),
    ["https-self-signed-cert.pem", "https-self-signed-key.pem"],
    "no lock or scratch file is left behind",
  );
});

test("a client that trusts the file on disk reaches every replica, host name verified", async () => {
  const ca = readFileSync(join(stateDir, "https-self-signed-cert.pem"), "utf8");
  for (const { port } of gateways) {
    const handshake = await verifiedHandshake(port, ca);
    assert.ok(handshake.authorized, `replica on ${port}: ${handshake.error}`);
  }
});

/** A handshake that verifies the chain against `ca` and the name "localhost". */
function verifiedHandshake(port: number, ca: string): Promise<{ authorized: boolean; error?: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, servername: "localhost", ca }, () => {
      resolve({ authorized: socket.authorized });
      socket.end();
    });
    socket.on("error", (error) => resolve({ authorized: false, error: error.message }));
  });
}
