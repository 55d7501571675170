// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata API.
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { X509Certificate, createPrivateKey, webcrypto } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { isIP } from "node:net";
import { join } from "node:path";
import type { TlsCredentials } from "./tls-credentials.ts";

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export const SELF_SIGNED_KEY_FILE = "https-self-signed-key.pem";
export const SELF_SIGNED_CERT_FILE = "https-self-signed-cert.pem";

const VALIDITY_DAYS = 825;
/** A certificate this close to expiry is replaced at start-up rather than left to lapse while running. */
const RENEW_BEFORE_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The HTTPS certificate when none is configured: self-signed RSA 2048, for localhost, 127.0.0.1,
 * ::1 and the configured `hostname`. It is kept as PEM in `stateDir` and reused on the next start,
 * so clients that pinned or trusted it keep working; it is replaced only when missing, unreadable,
 * near expiry, not matching its key, or not covering the configured hostname.
 */
export async function selfSignedCertificate(stateDir: string, hostname: string | undefined, now = new Date()): Promise<TlsCredentials> {
  const keyPath = join(stateDir, SELF_SIGNED_KEY_FILE);
  const certPath = join(stateDir, SELF_SIGNED_CERT_FILE);
  const existing = await readUsable(keyPath, certPath, hostname, now);
  if (existing) return existing;

  const created = await createSelfSigned(subjectAltNames(hostname), now);
  await mkdir(stateDir, { recursive: true });
  await writeAtomically(keyPath, created.key, 0o600);
  await writeAtomically(certPath, created.cert, 0o644);
  return created;
}

function subjectAltNames(hostname: string | undefined): x509.JsonGeneralName[] {
  const names: x509.JsonGeneralName[] = [
    { type: "dns", value: "localhost" },
    { type: "ip", value: "127.0.0.1" },
    { type: "ip", value: "::1" },
  ];
  const extra = hostname?.trim();
  if (extra && !names.some((name) => name.value === extra.toLowerCase())) {
    names.push({ type: isIP(extra) === 0 ? "dns" : "ip", value: extra });
  }
  return names;
}

async function createSelfSigned(names: x509.JsonGeneralName[], now: Date): Promise<TlsCredentials> {
  const algorithm = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256", publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ["sign", "verify"]);
  const commonName = names.find((name) => name.type === "dns" && name.value !== "localhost")?.value ?? "localhost";
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString("hex").replace(/^[89a-f]/, "1"),
    name: `CN=${commonName}, O=Twinport`,
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + VALIDITY_DAYS * DAY_MS),
    signingAlgorithm: algorithm,
    keys: keys as unknown as CryptoKeyPair,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as unknown as CryptoKey),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey);
  return { key: x509.PemConverter.encode(pkcs8, "PRIVATE KEY"), cert: certificate.toString("pem") };
}

async function readUsable(keyPath: string, certPath: string, hostname: string | undefined, now: Date): Promise<TlsCredentials | undefined> {
  let key: string;
  let cert: string;
  try {
    [key, cert] = await Promise.all([readFile(keyPath, "utf8"), readFile(certPath, "utf8")]);
  } catch {
    return undefined;
  }
  try {
    const parsed = new X509Certificate(cert);
    if (!parsed.checkPrivateKey(createPrivateKey(key))) return undefined;
    if (new Date(parsed.validTo).getTime() - now.getTime() < RENEW_BEFORE_DAYS * DAY_MS) return undefined;
    const extra = hostname?.trim();
    if (extra && !(isIP(extra) === 0 ? parsed.checkHost(extra) : parsed.checkIP(extra))) return undefined;
    return { key, cert };
  } catch {
    return undefined;
  }
}

/** Write-then-rename, so a crash mid-write never leaves half a key that the next start would trust. */
async function writeAtomically(path: string, text: string, mode: number): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode });
  await rename(temporary, path);
}
