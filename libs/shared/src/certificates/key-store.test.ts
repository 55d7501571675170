import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  type Certified,
  type KeyAlgorithm,
  opensslCertificate,
  opensslIssuedCertificate,
  opensslPkcs12,
} from "../../../../tests/test-support/openssl-keystores.ts";
import { readKeyStore } from "./key-store.ts";

const origin = (file: string) => ({ where: `keystore ${file}`, setting: "certificate" });
const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;

function hasKeytool(): boolean {
  try {
    execFileSync("keytool", ["-help"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("readKeyStore on key stores made by openssl and keytool", () => {
  let dir: string;
  const made: Partial<Record<KeyAlgorithm, Certified>> = {};
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "twinport-keystore-"));
    made.rsa = opensslCertificate(dir, "rsa.example", "rsa");
    made.ec = opensslCertificate(dir, "ec.example", "ec");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const algorithm of ["rsa", "ec"] as const) {
    for (const legacy of [false, true]) {
      const cipher = legacy ? "legacy (RC2/3DES, SHA-1 MAC)" : "current (PBES2 AES-256, SHA-256 MAC)";
      it(`${algorithm.toUpperCase()} key, ${cipher} ciphers: key, certificate, and a clear error for a wrong password`, async () => {
        const entry = made[algorithm]!;
        const file = opensslPkcs12(join(dir, `${algorithm}-${legacy}.p12`), entry, {
          storePassword: "store-pw",
          alias: "server",
          legacy,
        });
        const content = await readKeyStore(file, { keyStorePassword: "store-pw", keyAlias: "server" }, origin(file));
        assert.deepEqual(content.chain.map(fingerprint), [entry.fingerprint]);
        assert.deepEqual(content.certificates.map(fingerprint), [entry.fingerprint]);
        assert.match(content.key!, /^-----BEGIN PRIVATE KEY-----/);
        assert.equal(createPrivateKey(content.key!).asymmetricKeyType, algorithm);
        assert.ok(new X509Certificate(content.chain[0]!).checkPrivateKey(createPrivateKey(content.key!)));
        await assert.rejects(
          readKeyStore(file, { keyStorePassword: "wrong" }, origin(file)),
          /: wrong keystore password \(certificate\.keyStorePassword\)/,
        );
        await assert.rejects(readKeyStore(file, {}, origin(file)), /wrong keystore password/);
      });

      it(`${algorithm.toUpperCase()} key with a key password of its own, ${cipher} ciphers`, async () => {
        const entry = made[algorithm]!;
        const file = opensslPkcs12(join(dir, `${algorithm}-${legacy}-two.p12`), entry, {
          storePassword: "store-pw",
          keyPassword: "key-pw",
          legacy,
        });
        const content = await readKeyStore(file, { keyStorePassword: "store-pw", keyPassword: "key-pw" }, origin(file));
        assert.equal(fingerprint(content.chain[0]!), entry.fingerprint);
        assert.ok(new X509Certificate(content.chain[0]!).checkPrivateKey(createPrivateKey(content.key!)));
        await assert.rejects(
          readKeyStore(file, { keyStorePassword: "store-pw", keyPassword: "nope" }, origin(file)),
          /wrong key password \(certificate\.keyPassword\)/,
        );
        await assert.rejects(
          readKeyStore(file, { keyStorePassword: "store-pw" }, origin(file)),
          /cannot be decrypted with the keystore password; set certificate\.keyPassword/,
        );
        await assert.rejects(
          readKeyStore(file, { keyStorePassword: "key-pw", keyPassword: "key-pw" }, origin(file)),
          /wrong keystore password/,
        );
      });
    }
  }

  it("a key password equal to the store password, or given where there is none of its own, changes nothing", async () => {
    const file = opensslPkcs12(join(dir, "same.p12"), made.rsa!, { storePassword: "pw" });
    for (const keyPassword of ["pw", "something else"]) {
      const content = await readKeyStore(file, { keyStorePassword: "pw", keyPassword }, origin(file));
      assert.equal(fingerprint(content.chain[0]!), made.rsa!.fingerprint);
    }
  });

  for (const legacy of [false, true]) {
    it(`a password with non-ASCII characters (${legacy ? "legacy" : "current"} ciphers)`, async () => {
      const file = opensslPkcs12(join(dir, `umlaut-${legacy}.p12`), made.ec!, { storePassword: "Schlüssel€", legacy });
      const content = await readKeyStore(file, { keyStorePassword: "Schlüssel€" }, origin(file));
      assert.equal(fingerprint(content.chain[0]!), made.ec!.fingerprint);
    });
  }

  it("a store without MAC (openssl -nomac): read with the right password; a wrong one names both passwords", async () => {
    const file = join(dir, "nomac.p12");
    execFileSync(
      "openssl",
      [
        "pkcs12",
        "-export",
        "-nomac",
        "-inkey",
        made.rsa!.keyFile,
        "-in",
        made.rsa!.certFile,
        "-passout",
        "pass:pw",
        "-out",
        file,
      ],
      { stdio: "ignore" },
    );
    const content = await readKeyStore(file, { keyStorePassword: "pw" }, origin(file));
    assert.equal(fingerprint(content.chain[0]!), made.rsa!.fingerprint);
    await assert.rejects(
      readKeyStore(file, { keyStorePassword: "wrong" }, origin(file)),
      /check certificate\.keyStorePassword, or set certificate\.keyPassword/,
    );
  });

  it("puts the key's certificate first and sends its issuer along as the chain", async () => {
    const ca = opensslCertificate(dir, "test-ca", "rsa", { ca: true });
    const leaf = opensslIssuedCertificate(dir, "issued.example", ca, "ec");
    const unrelated = made.rsa!;
    const file = opensslPkcs12(join(dir, "chain.p12"), leaf, {
      storePassword: "pw",
      extraCertificates: [unrelated, ca],
    });
    const content = await readKeyStore(file, { keyStorePassword: "pw" }, origin(file));
    assert.deepEqual(
      content.chain.map(fingerprint),
      [leaf.fingerprint, ca.fingerprint],
      "the unrelated certificate is no part of the chain",
    );
    assert.equal(fingerprint(content.certificates[0]!), leaf.fingerprint);
    assert.deepEqual(
      new Set(content.certificates.map(fingerprint)),
      new Set([leaf.fingerprint, ca.fingerprint, unrelated.fingerprint]),
    );
  });

  for (const legacy of [false, true]) {
    it(`a trust store of certificates only (${legacy ? "legacy" : "current"} ciphers) yields them, and no key`, async () => {
      const file = opensslPkcs12(join(dir, `trust-${legacy}.p12`), made.ec!, {
        storePassword: "changeit",
        certificatesOnly: true,
        extraCertificates: [made.rsa!],
        legacy,
      });
      const content = await readKeyStore(file, { keyStorePassword: "changeit", keyAlias: "absent" }, origin(file));
      assert.equal(content.key, undefined);
      assert.deepEqual(content.chain, []);
      assert.deepEqual(
        new Set(content.certificates.map(fingerprint)),
        new Set([made.ec!.fingerprint, made.rsa!.fingerprint]),
      );
    });
  }

  it("picks the entry by alias (ignoring case, as Java does) in a keytool store of two keys (RSA and EC); an unknown alias lists the ones present", {
    skip: hasKeytool() ? false : "keytool is not installed",
  }, async () => {
    const file = join(dir, "keytool.p12");
    for (const [alias, algorithm] of [
      ["first", ["-keyalg", "RSA", "-keysize", "2048"]],
      ["second", ["-keyalg", "EC", "-groupname", "secp256r1"]],
    ] as const) {
      execFileSync(
        "keytool",
        [
          "-genkeypair",
          "-alias",
          alias,
          ...algorithm,
          "-dname",
          `CN=${alias}`,
          "-validity",
          "2",
          "-keystore",
          file,
          "-storetype",
          "PKCS12",
          "-storepass",
          "changeit",
        ],
        { stdio: "ignore" },
      );
    }
    const second = await readKeyStore(file, { keyStorePassword: "changeit", keyAlias: "Second" }, origin(file));
    assert.equal(new X509Certificate(second.chain[0]!).subject, "CN=second");
    assert.equal(createPrivateKey(second.key!).asymmetricKeyType, "ec");
    const first = await readKeyStore(file, { keyStorePassword: "changeit" }, origin(file));
    assert.equal(new X509Certificate(first.chain[0]!).subject, "CN=first", "without an alias the first key");
    await assert.rejects(
      readKeyStore(file, { keyStorePassword: "changeit", keyAlias: "third" }, origin(file)),
      /no key with alias "third" \(certificate\.keyAlias\); aliases in the keystore: first, second/,
    );
  });

  it("PEM: certificates and a key, encrypted or not", async () => {
    const plain = join(dir, "plain.pem");
    writeFileSync(plain, made.rsa!.cert + made.rsa!.key);
    const content = await readKeyStore(plain, { keyStoreType: "PEM" }, origin(plain));
    assert.equal(fingerprint(content.chain[0]!), made.rsa!.fingerprint);
    const encrypted = join(dir, "encrypted.pem");
    const encryptedKey = createPrivateKey(made.ec!.key)
      .export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "key-pw" })
      .toString();
    writeFileSync(encrypted, made.ec!.cert + encryptedKey);
    const decrypted = await readKeyStore(encrypted, { keyStoreType: "pem", keyPassword: "key-pw" }, origin(encrypted));
    assert.ok(new X509Certificate(decrypted.chain[0]!).checkPrivateKey(createPrivateKey(decrypted.key!)));
    await assert.rejects(
      readKeyStore(encrypted, { keyStoreType: "PEM", keyPassword: "wrong" }, origin(encrypted)),
      /private key cannot be read; check certificate\.keyPassword/,
    );
  });

  it("refuses other store types, missing files and files that are not PKCS12", async () => {
    await assert.rejects(
      readKeyStore(join(dir, "x"), { keyStoreType: "JKS" }, origin("x")),
      /keyStoreType "JKS" is not supported; use PKCS12 \(convert a JKS store with: keytool -importkeystore/,
    );
    await assert.rejects(
      readKeyStore(join(dir, "missing.p12"), {}, origin("missing")),
      /cannot be read \(certificate\.keyStorePath\)/,
    );
    const garbage = join(dir, "garbage.p12");
    writeFileSync(garbage, "this is not a keystore");
    await assert.rejects(
      readKeyStore(garbage, { keyStorePassword: "x" }, origin(garbage)),
      /is not a PKCS12 file \(certificate\.keyStorePath\)/,
    );
  });
});
