import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import { type KeyStoreContent, type KeyStoreOrigin, type Pkcs12Passwords, readPkcs12 } from "./pkcs12.ts";

/** The key store keys of the spec's CertificateInfo and FA³ST's CertificateConfig. */
export interface KeyStoreSettings extends Pkcs12Passwords {
  /** PKCS12 (also P12, PFX) or PEM; absent means PKCS12. */
  keyStoreType?: string;
}

/**
 * Reads the key store `file` (the HTTPS endpoint's certificate, an asset connection's trusted or
 * client certificates). PKCS12 is the spec's and FA³ST's type; PEM (certificates and an optional
 * key in one file) is our extension. JKS is refused with the keytool command that converts it.
 * Every failure is an Error that names the file and the setting to fix.
 */
export async function readKeyStore(
  file: string,
  settings: KeyStoreSettings,
  origin: KeyStoreOrigin,
): Promise<KeyStoreContent> {
  const type = (settings.keyStoreType ?? "PKCS12").trim().toUpperCase();
  const pkcs12 = type === "PKCS12" || type === "P12" || type === "PFX";
  if (!pkcs12 && type !== "PEM") {
    throw new Error(
      `${origin.where}: keyStoreType "${settings.keyStoreType}" is not supported; use PKCS12 (convert a JKS store with: keytool -importkeystore -srckeystore store.jks -destkeystore store.p12 -deststoretype PKCS12) or PEM`,
    );
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new Error(`${origin.where} cannot be read (${origin.setting}.keyStorePath): ${(error as Error).message}`);
  }
  return pkcs12 ? readPkcs12(bytes, settings, origin) : readPem(bytes.toString("utf8"), settings, origin);
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const PEM_KEY = /-----BEGIN (RSA |EC |ENCRYPTED )?PRIVATE KEY-----[\s\S]+?-----END \1?PRIVATE KEY-----/;

/** The certificates in file order (the key's first, as in a PEM chain); an encrypted key is decrypted with keyPassword, else the store password. */
function readPem(text: string, settings: KeyStoreSettings, origin: KeyStoreOrigin): KeyStoreContent {
  const certificates = (text.match(PEM_CERTIFICATE) ?? []).map((pem) => {
    try {
      return new X509Certificate(pem);
    } catch (error) {
      throw new Error(`${origin.where}: a certificate cannot be read (${(error as Error).message})`);
    }
  });
  const content: KeyStoreContent = {
    certificates: certificates.map((certificate) => certificate.toString()),
    chain: [],
  };
  const keyPem = PEM_KEY.exec(text)?.[0];
  if (keyPem === undefined) return content;
  let key: string;
  try {
    const passphrase = settings.keyPassword ?? settings.keyStorePassword;
    key = createPrivateKey({ key: keyPem, ...(passphrase !== undefined ? { passphrase } : {}) })
      .export({ type: "pkcs8", format: "pem" })
      .toString();
  } catch (error) {
    throw new Error(
      `${origin.where}: the private key cannot be read; check ${origin.setting}.keyPassword (${(error as Error).message})`,
    );
  }
  const leaf = certificates[0];
  if (!leaf) throw new Error(`${origin.where}: no certificate belongs to the key`);
  if (!leaf.checkPrivateKey(createPrivateKey(key)))
    throw new Error(`${origin.where}: the first certificate does not match the key`);
  return { ...content, key, chain: content.certificates };
}
