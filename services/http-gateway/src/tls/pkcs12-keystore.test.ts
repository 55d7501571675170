import assert from "node:assert/strict";
import { X509Certificate, createPrivateKey } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pkcs12Keystore } from "../test-support/pkcs12.ts";
import { loadPkcs12Keystore } from "./pkcs12-keystore.ts";
import { selfSignedCertificate } from "./self-signed-certificate.ts";
import type { TlsCredentials } from "./tls-credentials.ts";

describe("loadPkcs12Keystore", () => {
  let dir: string;
  let first: TlsCredentials;
  let second: TlsCredentials;
  const file = (name: string, bytes: Buffer | string) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "twinport-p12-"));
    first = await selfSignedCertificate(join(dir, "one"), "first.example");
    second = await selfSignedCertificate(join(dir, "two"), "second.example");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;

  it("loads the key and certificate, picking the entry by alias", async () => {
    const path = file("two-keys.p12", pkcs12Keystore([{ ...first, alias: "first" }, { ...second, alias: "second" }], { storePassword: "changeit" }));
    const picked = await loadPkcs12Keystore({ keyStoreType: "PKCS12", keyStorePath: path, keyStorePassword: "changeit", keyAlias: "second" });
    assert.equal(fingerprint(picked.cert), fingerprint(second.cert));
    assert.ok(new X509Certificate(picked.cert).checkPrivateKey(createPrivateKey(picked.key)));
    const defaulted = await loadPkcs12Keystore({ keyStorePath: path, keyStorePassword: "changeit" });
    assert.equal(fingerprint(defaulted.cert), fingerprint(first.cert));
  });

  it("a wrong store password is a clear start-up error", async () => {
    const path = file("one.p12", pkcs12Keystore([{ ...first, alias: "server" }], { storePassword: "right" }));
    await assert.rejects(loadPkcs12Keystore({ keyStorePath: path, keyStorePassword: "wrong" }), /wrong keystore password \(certificate\.keyStorePassword\)/);
    await assert.rejects(loadPkcs12Keystore({ keyStorePath: path }), /wrong keystore password/);
  });

  it("an unknown alias is an error that lists the aliases present", async () => {
    const path = file("aliases.p12", pkcs12Keystore([{ ...first, alias: "first" }, { ...second, alias: "second" }], { storePassword: "pw" }));
    await assert.rejects(loadPkcs12Keystore({ keyStorePath: path, keyStorePassword: "pw", keyAlias: "third" }), /no key with alias "third" \(certificate\.keyAlias\); aliases in the keystore: first, second/);
  });

  it("a key password different from the store password is used for the key", async () => {
    const path = file("key-password.p12", pkcs12Keystore([{ ...first, alias: "server" }], { storePassword: "store-pw", keyPassword: "key-pw" }));
    const loaded = await loadPkcs12Keystore({ keyStorePath: path, keyStorePassword: "store-pw", keyPassword: "key-pw", keyAlias: "server" });
    assert.equal(fingerprint(loaded.cert), fingerprint(first.cert));
    await assert.rejects(loadPkcs12Keystore({ keyStorePath: path, keyStorePassword: "store-pw", keyPassword: "nope" }), /wrong key password \(certificate\.keyPassword\)/);
    await assert.rejects(loadPkcs12Keystore({ keyStorePath: path, keyStorePassword: "store-pw" }), /certificate\.keyPassword/);
  });

  it("rejects other keystore types, missing files and files that are not PKCS12", async () => {
    await assert.rejects(loadPkcs12Keystore({ keyStoreType: "JKS", keyStorePath: join(dir, "x") }), /keyStoreType "JKS" is not supported/);
    await assert.rejects(loadPkcs12Keystore({ keyStorePath: join(dir, "missing.p12") }), /cannot be read \(certificate\.keyStorePath\)/);
    const garbage = file("garbage.p12", "this is not a keystore");
    await assert.rejects(loadPkcs12Keystore({ keyStorePath: garbage, keyStorePassword: "x" }), /not a PKCS12 file/);
  });
});
