import { generateKeyPair, randomBytes, X509Certificate } from "node:crypto";
import { isIP } from "node:net";
import { promisify } from "node:util";
import { loadForge } from "./forge.ts";

export interface SelfSignedRequest {
  /** DNS names and IP addresses the certificate is for; the first DNS name is also its common name. */
  names: string[];
  organization: string;
  validityDays: number;
  now?: Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A self-signed TLS server certificate with a new RSA 2048 key, as PEM (the key as PKCS#8).
 * node:crypto makes the key (native, off the event loop); node-forge, the one certificate
 * library of the project, builds and signs the certificate.
 */
export async function createSelfSignedCertificate(request: SelfSignedRequest): Promise<{ key: string; cert: string }> {
  const forge = await loadForge();
  const now = request.now ?? new Date();
  const { publicKey, privateKey } = await promisify(generateKeyPair)("rsa", { modulusLength: 2048 });
  const key = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: "spki", format: "pem" }).toString());
  certificate.serialNumber = serialNumber();
  certificate.validity.notBefore = new Date(now.getTime() - DAY_MS);
  certificate.validity.notAfter = new Date(now.getTime() + request.validityDays * DAY_MS);
  const commonName = request.names.find((name) => isIP(name) === 0) ?? request.names[0] ?? "localhost";
  const subject = [
    { name: "commonName", value: commonName },
    { name: "organizationName", value: request.organization },
  ];
  certificate.setSubject(subject);
  certificate.setIssuer(subject);
  certificate.setExtensions([
    { name: "basicConstraints", cA: false, critical: true },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    {
      name: "subjectAltName",
      altNames: request.names.map((name) => (isIP(name) === 0 ? { type: 2, value: name } : { type: 7, ip: name })),
    },
    { name: "subjectKeyIdentifier" },
  ]);
  certificate.sign(forge.pki.privateKeyFromPem(key), forge.md.sha256.create());
  // Through node:crypto for its PEM: forge's has CRLF line ends, which some tools keep in the file they copy it to.
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(certificate)).getBytes(), "binary");
  return { key, cert: new X509Certificate(der).toString() };
}

/**
 * 16 random bytes (RFC 5280 §4.1.2.2 wants serials unique per issuer, and a self-signed issuer
 * keeps no register), positive and minimally encoded: a DER INTEGER whose first byte has the high
 * bit set would read as negative, and a leading zero byte is refused by strict parsers.
 */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f || 0x01;
  return bytes.toString("hex");
}
