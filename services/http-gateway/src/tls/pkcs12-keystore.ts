import forge from "node-forge";
import { X509Certificate, createPrivateKey } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { TlsCredentials } from "./tls-credentials.ts";

export interface KeystoreSettings {
  keyStoreType?: string;
  keyStorePath: string;
  keyStorePassword?: string;
  keyAlias?: string;
  keyPassword?: string;
}

/**
 * Reads the HTTPS key and certificate from a PKCS12 keystore (the format FA³ST users configure).
 * node-forge does the parsing: Node 20's TLS refuses keystores with legacy encryption, and cannot
 * pick a key by alias (friendlyName). Every failure is an Error that names the setting to fix.
 */
export async function loadPkcs12Keystore(settings: KeystoreSettings): Promise<TlsCredentials> {
  const where = `HTTPS keystore ${settings.keyStorePath}`;
  const type = settings.keyStoreType?.trim().toUpperCase();
  if (type && type !== "PKCS12" && type !== "P12" && type !== "PFX") {
    throw new Error(`${where}: keyStoreType "${settings.keyStoreType}" is not supported; convert the keystore to PKCS12 (e.g. keytool -importkeystore -deststoretype PKCS12)`);
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(settings.keyStorePath);
  } catch (error) {
    throw new Error(`${where} cannot be read (certificate.keyStorePath): ${(error as Error).message}`);
  }
  const pfx = openPfx(bytes, settings, where);
  const keyBag = pickKeyBag(pfx, settings.keyAlias, where);
  const key = keyPem(keyBag, where);
  const certs = certificateChain(pfx, keyBag);
  if (certs.length === 0) throw new Error(`${where}: no certificate belongs to the key${aliasText(settings.keyAlias)}`);
  const cert = certs.map((certificate) => forge.pki.certificateToPem(certificate)).join("");
  if (!new X509Certificate(forge.pki.certificateToPem(certs[0])).checkPrivateKey(createPrivateKey(key))) {
    throw new Error(`${where}: the certificate does not match the key${aliasText(settings.keyAlias)}`);
  }
  return { key, cert };
}

/**
 * The MAC is checked with the store password. forge decrypts key bags with that same password, so
 * a different `keyPassword` is applied in a second pass over the already-authenticated content.
 */
function openPfx(bytes: Buffer, settings: KeystoreSettings, where: string): forge.pkcs12.Pkcs12Pfx {
  const storePassword = settings.keyStorePassword ?? "";
  const asn1 = () => {
    try {
      return forge.asn1.fromDer(forge.util.createBuffer(bytes.toString("binary")));
    } catch {
      throw new Error(`${where} is not a PKCS12 file (certificate.keyStorePath)`);
    }
  };
  try {
    return forge.pkcs12.pkcs12FromAsn1(asn1(), false, storePassword);
  } catch (error) {
    const message = (error as Error).message;
    if (/MAC could not be verified/i.test(message)) {
      throw new Error(`${where}: wrong keystore password (certificate.keyStorePassword)`);
    }
    const keyPassword = settings.keyPassword;
    if (/decrypt/i.test(message) && keyPassword !== undefined && keyPassword !== storePassword) {
      const unauthenticated = asn1();
      // The MAC already verified above with the store password; drop it to decrypt with the key's.
      unauthenticated.value = (unauthenticated.value as forge.asn1.Asn1[]).slice(0, 2);
      try {
        return forge.pkcs12.pkcs12FromAsn1(unauthenticated, false, keyPassword);
      } catch {
        throw new Error(`${where}: wrong key password (certificate.keyPassword)`);
      }
    }
    if (/decrypt/i.test(message)) throw new Error(`${where}: the key cannot be decrypted; set certificate.keyPassword`);
    throw new Error(`${where} cannot be read: ${message}`);
  }
}

type Bag = forge.pkcs12.Bag;

function pickKeyBag(pfx: forge.pkcs12.Pkcs12Pfx, alias: string | undefined, where: string): Bag {
  const keyBags = [forge.pki.oids.pkcs8ShroudedKeyBag, forge.pki.oids.keyBag].flatMap((bagType) => pfx.getBags({ bagType })[bagType] ?? []);
  if (keyBags.length === 0) throw new Error(`${where} holds no private key`);
  if (alias === undefined || alias === "") return keyBags[0];
  const found = keyBags.find((bag) => friendlyName(bag) === alias);
  if (found) return found;
  const known = keyBags.map(friendlyName).filter((name): name is string => name !== undefined);
  throw new Error(`${where}: no key with alias "${alias}" (certificate.keyAlias); aliases in the keystore: ${known.length > 0 ? known.join(", ") : "none"}`);
}

function keyPem(bag: Bag, where: string): string {
  if (bag.key) return forge.pki.privateKeyInfoToPem(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key)));
  // forge parses only RSA keys; others (EC) stay as their decrypted PrivateKeyInfo, which Node reads.
  if (bag.asn1) return forge.pki.privateKeyInfoToPem(bag.asn1);
  throw new Error(`${where}: the private key cannot be read`);
}

/** The key's certificate (same localKeyId, else same alias) first, then the other certificates. */
function certificateChain(pfx: forge.pkcs12.Pkcs12Pfx, keyBag: Bag): forge.pki.Certificate[] {
  const bagType = forge.pki.oids.certBag;
  const certBags = (pfx.getBags({ bagType })[bagType] ?? []).filter((bag) => bag.cert !== undefined);
  const keyId = attribute(keyBag, "localKeyId");
  const name = friendlyName(keyBag);
  const leaf =
    certBags.find((bag) => keyId !== undefined && attribute(bag, "localKeyId") === keyId) ??
    certBags.find((bag) => name !== undefined && friendlyName(bag) === name) ??
    (certBags.length === 1 ? certBags[0] : undefined);
  if (leaf === undefined) return [];
  return [leaf, ...certBags.filter((bag) => bag !== leaf)].map((bag) => bag.cert as forge.pki.Certificate);
}

function friendlyName(bag: Bag): string | undefined {
  return attribute(bag, "friendlyName");
}

function attribute(bag: Bag, name: string): string | undefined {
  const values = bag.attributes?.[name] as unknown[] | undefined;
  return typeof values?.[0] === "string" ? values[0] : undefined;
}

function aliasText(alias: string | undefined): string {
  return alias ? ` with alias "${alias}"` : "";
}
