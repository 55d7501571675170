import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { withFileLock } from "@twinport/shared";
import {
  SELF_SIGNED_CERT_FILE,
  SELF_SIGNED_KEY_FILE,
  SELF_SIGNED_LOCK_FILE,
  selfSignedCertificate,
} from "./self-signed-certificate.ts";

describe("selfSignedCertificate", () => {
  const dirs: string[] = [];
  const stateDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "twinport-cert-"));
    dirs.push(dir);
    return join(dir, "state");
  };
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it("creates an RSA 2048 server certificate for localhost, 127.0.0.1, ::1 and the hostname, persisted as PEM", async () => {
    const dir = stateDir();
    const created = await selfSignedCertificate(dir, "gateway.example");
    const cert = new X509Certificate(created.cert);
    assert.equal(cert.publicKey.asymmetricKeyDetails?.modulusLength, 2048);
    assert.equal(cert.publicKey.asymmetricKeyType, "rsa");
    assert.ok(cert.checkHost("localhost"));
    assert.ok(cert.checkHost("gateway.example"));
    assert.ok(cert.checkIP("127.0.0.1"));
    assert.ok(cert.checkIP("::1"));
    assert.ok(cert.verify(cert.publicKey), "self-signed");
    assert.ok(!cert.ca);
    assert.ok(new Date(cert.validTo).getTime() > Date.now() + 365 * 24 * 3600 * 1000);
    assert.equal(readFileSync(join(dir, SELF_SIGNED_CERT_FILE), "utf8"), created.cert);
    assert.equal(readFileSync(join(dir, SELF_SIGNED_KEY_FILE), "utf8"), created.key);
    assert.match(created.key, /^-----BEGIN PRIVATE KEY-----/);
    assert.equal(statSync(join(dir, SELF_SIGNED_KEY_FILE)).mode & 0o077, 0, "the key is readable by its owner only");
  });

  it("reuses the persisted certificate on the next start", async () => {
    const dir = stateDir();
    const first = await selfSignedCertificate(dir, undefined);
    const second = await selfSignedCertificate(dir, undefined);
    assert.equal(second.cert, first.cert);
    assert.equal(second.key, first.key);
  });

  it("an IP address as hostname becomes an IP SAN", async () => {
    const created = await selfSignedCertificate(stateDir(), "10.1.2.3");
    assert.ok(new X509Certificate(created.cert).checkIP("10.1.2.3"));
  });

  it("replaces a certificate that does not cover a new hostname, is damaged, or does not match its key", async () => {
    const dir = stateDir();
    const first = await selfSignedCertificate(dir, undefined);
    const renamed = await selfSignedCertificate(dir, "other.example");
    assert.notEqual(renamed.cert, first.cert);
    assert.ok(new X509Certificate(renamed.cert).checkHost("other.example"));
    writeFileSync(join(dir, SELF_SIGNED_CERT_FILE), "garbage");
    const repaired = await selfSignedCertificate(dir, "other.example");
    assert.ok(new X509Certificate(repaired.cert).checkHost("other.example"));
    writeFileSync(join(dir, SELF_SIGNED_KEY_FILE), first.key);
    const rekeyed = await selfSignedCertificate(dir, "other.example");
    assert.notEqual(rekeyed.cert, repaired.cert);
  });

  it("replaces a certificate close to expiry", async () => {
    const dir = stateDir();
    const first = await selfSignedCertificate(dir, undefined);
    const muchLater = new Date(Date.now() + 820 * 24 * 3600 * 1000);
    const renewed = await selfSignedCertificate(dir, undefined, muchLater);
    assert.notEqual(renewed.cert, first.cert);
  });

  it("waits while another replica holds the lock, then serves the certificate that one wrote", async () => {
    const dir = stateDir();
    mkdirSync(dir, { recursive: true });
    let waiter: Promise<unknown> | undefined;
    const written = await withFileLock(join(dir, SELF_SIGNED_LOCK_FILE), async () => {
      waiter = selfSignedCertificate(dir, undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Another process's certificate, written while it holds the lock: the waiter must take it, not make its own.
      return selfSignedCertificate(join(dir, "..", "elsewhere"), undefined).then((made) => {
        writeFileSync(join(dir, SELF_SIGNED_KEY_FILE), made.key);
        writeFileSync(join(dir, SELF_SIGNED_CERT_FILE), made.cert);
        return made;
      });
    });
    assert.deepEqual(await waiter, written);
    assert.ok(!existsSync(join(dir, SELF_SIGNED_LOCK_FILE)), "the lock is gone");
  });

  it("takes over a lock left by a replica that crashed while creating", async () => {
    const dir = stateDir();
    mkdirSync(dir, { recursive: true });
    const lock = join(dir, SELF_SIGNED_LOCK_FILE);
    writeFileSync(lock, "gateway-1 pid 1 crashed\n");
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(lock, longAgo, longAgo);
    const started = Date.now();
    const created = await selfSignedCertificate(dir, undefined, new Date(), { staleMs: 5_000 });
    assert.ok(Date.now() - started < 5_000, "no wait for a lock nobody refreshes");
    assert.equal(readFileSync(join(dir, SELF_SIGNED_CERT_FILE), "utf8"), created.cert);
    assert.ok(!existsSync(lock));
  });
});
