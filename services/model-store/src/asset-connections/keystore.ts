import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import forge from "node-forge";
import type { CertificateConfig } from "@twinport/shared";

/** What a key store holds, as PEM. */
export interface KeyStoreContent {
  /** The private key (of `keyAlias`, or the first one), when the store has one. */
  key?: string;
  /** The key's certificate first, then any others. */
  certificates: string[];
}

/** FA³ST's lookup: the path as given (absolute or from the working directory), then below the base directory. */
export function findKeyStore(path: string, baseDir: string): string | undefined {
  if (existsSync(path)) return path;
  const below = join(baseDir, path);
  return !isAbsolute(path) && existsSync(below) ? below : undefined;
}

/**
 * Reads a PKCS12 key store (FA³ST's default type) with node-forge, which, unlike Node 20, reads
 * legacy encryption and can pick an entry by alias (friendlyName). `PEM` is accepted too (our
 * extension: one file of certificates and an optional key). JKS is not: it names the keytool
 * command that converts it.
 */
export function readKeyStore(file: string, settings: CertificateConfig, where: string): KeyStoreContent {
  const type = settings.keyStoreType.trim().toUpperCase();
  const bytes = readFileSync(file);
  if (type === "PEM") {
    const text = bytes.toString("utf8");
    const certificates = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    const key = /-----BEGIN (?:RSA |EC |ENCRYPTED )?PRIVATE KEY-----[\s\S]+?-----END (?:RSA |EC |ENCRYPTED )?PRIVATE KEY-----/.exec(text)?.[0];
    return { ...(key ? { key } : {}), certificates: certificates.map((pem) => `${pem}\n`) };
  }
  if (type !== "PKCS12" && type !== "P12" && type !== "PFX") {
    throw new Error(`${where}: keyStoreType "${settings.keyStoreType}" is not supported; use PKCS12 (convert a JKS store with: keytool -importkeystore -srckeystore store.jks -destkeystore store.p12 -deststoretype PKCS12) or PEM`);
  }
  let pfx: forge.pkcs12.Pkcs12Pfx;
  try {
    const asn1 = forge.asn1.fromDer(forge.util.createBuffer(bytes.toString("binary")));
    pfx = forge.pkcs12.pkcs12FromAsn1(asn1, false, settings.keyPassword ?? settings.keyStorePassword ?? "");
  } catch (error) {
    const message = (error as Error).message;
    throw new Error(`${where}: ${/MAC/i.test(message) ? "wrong keyStorePassword" : /decrypt/i.test(message) ? "the key cannot be decrypted (keyPassword)" : `not a readable PKCS12 file (${message})`}`);
  }
  const bags = (type: string) => (pfx.getBags({ bagType: type })[type] ?? []) as forge.pkcs12.Bag[];
  const keyBags = [...bags(forge.pki.oids.pkcs8ShroudedKeyBag!), ...bags(forge.pki.oids.keyBag!)];
  const certBags = bags(forge.pki.oids.certBag!);
  const alias = settings.keyAlias;
  const keyBag = alias === undefined ? keyBags[0] : keyBags.find((bag) => bag.attributes.friendlyName?.[0] === alias);
  if (alias !== undefined && keyBags.length > 0 && !keyBag) throw new Error(`${where}: no key with the alias "${alias}" (keyAlias)`);
  const keyId = keyBag?.attributes.localKeyId?.[0];
  const own = certBags.filter((bag) => keyId !== undefined && bag.attributes.localKeyId?.[0] === keyId);
  const ordered = [...own, ...certBags.filter((bag) => !own.includes(bag))];
  const certificates = ordered.filter((bag) => bag.cert).map((bag) => forge.pki.certificateToPem(bag.cert!));
  const key = keyBag?.key ? forge.pki.privateKeyToPem(keyBag.key) : undefined;
  return { ...(key ? { key } : {}), certificates };
}
