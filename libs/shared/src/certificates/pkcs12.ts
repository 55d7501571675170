import { createPrivateKey, X509Certificate } from "node:crypto";
import type forgeModule from "node-forge";
import { type Forge, loadForge } from "./forge.ts";

type Bag = forgeModule.pkcs12.Bag;
type Pfx = forgeModule.pkcs12.Pkcs12Pfx;

/** What a key store holds: PEM, leaf certificate first. */
export interface KeyStoreContent {
  /** The private key (of `keyAlias`, or the first one) as unencrypted PKCS#8 PEM, when there is one. */
  key?: string;
  /** The key's certificate followed by those of its issuers that the store holds: what a TLS peer is sent. */
  chain: string[];
  /** Every certificate of the store, the key's first: what a trust store contributes. */
  certificates: string[];
}

export interface Pkcs12Passwords {
  /** Checks the MAC, and decrypts whatever was encrypted with the same password. */
  keyStorePassword?: string;
  /** Decrypts the key (and, as `openssl pkcs12 -twopass` writes them, the certificates) when it differs. */
  keyPassword?: string;
  keyAlias?: string;
}

/** Names used in error messages: which file, and the configuration object whose settings to fix. */
export interface KeyStoreOrigin {
  where: string;
  setting: string;
}

/**
 * Reads a PKCS#12 key store as Java keytool and openssl write them, legacy (RC2/3DES, SHA-1 MAC)
 * and current (PBES2 with AES, SHA-256 MAC) alike. node-forge does the decoding because Node's own
 * TLS neither loads the legacy ciphers (OpenSSL 3 keeps them in a provider Node does not load)
 * nor picks an entry by alias. forge parses RSA keys and certificates only; EC ones stay as
 * decoded ASN.1, so every key and certificate goes to node:crypto as DER, whatever its algorithm.
 */
export async function readPkcs12(
  bytes: Buffer,
  passwords: Pkcs12Passwords,
  origin: KeyStoreOrigin,
): Promise<KeyStoreContent> {
  const forge = await loadForge();
  const pfx = openPfx(forge, bytes, passwords, origin);
  const keyBags = [forge.pki.oids.pkcs8ShroudedKeyBag!, forge.pki.oids.keyBag!].flatMap(
    (bagType) => pfx.getBags({ bagType })[bagType] ?? [],
  );
  const certBags = pfx.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? [];
  const keyBag = pickKeyBag(keyBags, passwords.keyAlias, origin);
  const certificates = certBags.map((bag) => ({ bag, certificate: certificateOf(forge, bag, origin) }));
  const leaf = keyBag
    ? (certificates.find((entry) => belongsTo(entry.bag, keyBag)) ??
      (certificates.length === 1 ? certificates[0] : undefined))
    : undefined;
  const ordered = leaf ? [leaf, ...certificates.filter((entry) => entry !== leaf)] : certificates;
  const content: KeyStoreContent = { certificates: ordered.map((entry) => entry.certificate.toString()), chain: [] };
  if (!keyBag) return content;

  const key = privateKeyOf(forge, keyBag, origin);
  if (!leaf) throw new Error(`${origin.where}: no certificate belongs to the key${aliasText(passwords.keyAlias)}`);
  if (!leaf.certificate.checkPrivateKey(createPrivateKey(key)))
    throw new Error(`${origin.where}: the certificate does not match the key${aliasText(passwords.keyAlias)}`);
  content.key = key;
  content.chain = chainOf(
    leaf.certificate,
    ordered.map((entry) => entry.certificate),
  ).map((certificate) => certificate.toString());
  return content;
}

/**
 * The MAC is checked with the store password; forge then decrypts with that same password. When
 * decryption fails after a good MAC, the key has a password of its own: the already-authenticated
 * content is read again, without the MAC, with `keyPassword`.
 */
function openPfx(forge: Forge, bytes: Buffer, passwords: Pkcs12Passwords, origin: KeyStoreOrigin): Pfx {
  const storePassword = passwords.keyStorePassword ?? "";
  const keyPassword = passwords.keyPassword;
  const asn1 = () => {
    try {
      return forge.asn1.fromDer(forge.util.createBuffer(bytes.toString("binary")));
    } catch {
      throw new Error(`${origin.where} is not a PKCS12 file (${origin.setting}.keyStorePath)`);
    }
  };
  try {
    return forge.pkcs12.pkcs12FromAsn1(asn1(), false, storePassword);
  } catch (error) {
    const message = (error as Error).message;
    if (/MAC could not be verified/i.test(message))
      throw new Error(`${origin.where}: wrong keystore password (${origin.setting}.keyStorePassword)`);
    if (!isDecryptionFailure(message)) throw new Error(`${origin.where} is not a readable PKCS12 file (${message})`);
    if (keyPassword === undefined || keyPassword === storePassword) {
      // Without a MAC nothing confirmed the store password, so it may be the wrong one.
      const check = hasMac(asn1()) ? "" : `check ${origin.setting}.keyStorePassword, or `;
      throw new Error(
        `${origin.where}: the key cannot be decrypted with the keystore password; ${check}set ${origin.setting}.keyPassword`,
      );
    }
  }
  const unauthenticated = asn1();
  // Version and content only: the MAC (third element) was verified above with the store password.
  unauthenticated.value = (unauthenticated.value as forgeModule.asn1.Asn1[]).slice(0, 2);
  try {
    return forge.pkcs12.pkcs12FromAsn1(unauthenticated, false, keyPassword);
  } catch {
    throw new Error(`${origin.where}: wrong key password (${origin.setting}.keyPassword)`);
  }
}

/**
 * A wrong password shows up as a padding error, or, when the garbage happens to be padded
 * correctly (1 in 256), as undecodable content. So whatever fails once the outer structure has
 * been read (forge's messages for it are matched here) is taken for a password that does not
 * decrypt; with a good MAC that is certain, since the content is what its writer wrote.
 */
function isDecryptionFailure(message: string): boolean {
  return !/PFX|authSafe|AuthenticatedSafe|ContentInfo|contentType|unsupported|iteration/i.test(message);
}

/** PFX is SEQUENCE { version, authSafe, macData OPTIONAL }. */
function hasMac(pfx: forgeModule.asn1.Asn1): boolean {
  return (pfx.value as forgeModule.asn1.Asn1[]).length > 2;
}

function pickKeyBag(keyBags: Bag[], alias: string | undefined, origin: KeyStoreOrigin): Bag | undefined {
  if (keyBags.length === 0) return undefined;
  if (alias === undefined || alias === "") return keyBags[0];
  // Java's key stores compare aliases ignoring case (keytool stores them lower-cased), and so does FA³ST's keyAlias.
  const found = keyBags.find((bag) => attribute(bag, "friendlyName")?.toLowerCase() === alias.toLowerCase());
  if (found) return found;
  const known = keyBags
    .map((bag) => attribute(bag, "friendlyName"))
    .filter((name): name is string => name !== undefined);
  throw new Error(
    `${origin.where}: no key with alias "${alias}" (${origin.setting}.keyAlias); aliases in the keystore: ${known.length > 0 ? known.join(", ") : "none"}`,
  );
}

/** As PKCS#8 PEM, through node:crypto, so RSA and EC keys come out alike. */
function privateKeyOf(forge: Forge, bag: Bag, origin: KeyStoreOrigin): string {
  const info = bag.key ? forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key)) : bag.asn1;
  if (!info) throw new Error(`${origin.where}: the private key cannot be read`);
  try {
    const der = Buffer.from(forge.asn1.toDer(info).getBytes(), "binary");
    return createPrivateKey({ key: der, format: "der", type: "pkcs8" })
      .export({ type: "pkcs8", format: "pem" })
      .toString();
  } catch (error) {
    throw new Error(`${origin.where}: the private key cannot be read (${(error as Error).message})`);
  }
}

function certificateOf(forge: Forge, bag: Bag, origin: KeyStoreOrigin): X509Certificate {
  const asn1 = bag.cert ? forge.pki.certificateToAsn1(bag.cert) : bag.asn1;
  try {
    if (!asn1) throw new Error("empty certificate bag");
    return new X509Certificate(Buffer.from(forge.asn1.toDer(asn1).getBytes(), "binary"));
  } catch (error) {
    throw new Error(`${origin.where}: a certificate cannot be read (${(error as Error).message})`);
  }
}

/** keytool and openssl tie a key to its certificate by localKeyId; the alias is the fallback. */
function belongsTo(certBag: Bag, keyBag: Bag): boolean {
  const keyId = attribute(keyBag, "localKeyId");
  if (keyId !== undefined) return attribute(certBag, "localKeyId") === keyId;
  const name = attribute(keyBag, "friendlyName");
  return name !== undefined && attribute(certBag, "friendlyName") === name;
}

/** The leaf, then each issuer found in the store, up to a self-signed one. */
function chainOf(leaf: X509Certificate, all: X509Certificate[]): X509Certificate[] {
  const chain = [leaf];
  for (let current = leaf; current.issuer !== current.subject; ) {
    const issuer = all.find(
      (candidate) =>
        !chain.includes(candidate) && current.checkIssued(candidate) && current.verify(candidate.publicKey),
    );
    if (!issuer) break;
    chain.push(issuer);
    current = issuer;
  }
  return chain;
}

function attribute(bag: Bag, name: string): string | undefined {
  const values = bag.attributes?.[name] as unknown[] | undefined;
  return typeof values?.[0] === "string" ? values[0] : undefined;
}

function aliasText(alias: string | undefined): string {
  return alias ? ` with alias "${alias}"` : "";
}
