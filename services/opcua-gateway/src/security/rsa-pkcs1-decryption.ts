import { constants, generateKeyPairSync, privateDecrypt, publicEncrypt } from "node:crypto";

type PrivateDecrypt = typeof privateDecrypt;

/**
 * BASIC128RSA15 encrypts its asymmetric messages with RSA PKCS#1 v1.5, which node-opcua decrypts
 * with node:crypto's privateDecrypt. Since CVE-2023-46809 (the Marvin attack) Node decrypts that
 * padding only when its OpenSSL does implicit rejection (OpenSSL ≥ 3.2, as bundled with Node 24);
 * otherwise privateDecrypt throws. Node 20 could be told `--security-revert=CVE-2023-46809`;
 * Node 22 and later have no such revert and refuse to start with the flag. So there is nothing to
 * switch on: either this runtime decrypts PKCS#1 v1.5, or BASIC128RSA15 cannot work at all, and
 * then the endpoint must not start as if it did (clients would fail their handshake with nothing
 * in the server's log). The probe costs one 1024-bit key (~20 ms), only when the policy is asked for.
 *
 * Returns undefined when PKCS#1 v1.5 decryption works, else the reason it does not.
 */
export function rsaPkcs1DecryptionUnavailable(decrypt: PrivateDecrypt = privateDecrypt): string | undefined {
  try {
    const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 1024 });
    const probe = Buffer.from("twinport");
    const encrypted = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, probe);
    const decrypted = decrypt({ key: privateKey, padding: constants.RSA_PKCS1_PADDING }, encrypted);
    return decrypted.equals(probe) ? undefined : "RSA PKCS#1 v1.5 decryption returned a wrong result";
  } catch (error) {
    return (error as Error).message ?? String(error);
  }
}

/** Throws the start-up error when `policies` list BASIC128RSA15 and this runtime cannot serve it. */
export function assertBasic128Rsa15Servable(
  policies: readonly string[],
  decrypt: PrivateDecrypt = privateDecrypt,
): void {
  if (!policies.includes("BASIC128RSA15")) return;
  const reason = rsaPkcs1DecryptionUnavailable(decrypt);
  if (reason === undefined) return;
  throw new Error(
    `supportedSecurityPolicies lists BASIC128RSA15, which needs RSA PKCS#1 v1.5 decryption, and this Node.js ${process.version} ` +
      `(OpenSSL ${process.versions.openssl}) refuses it: ${reason}. Node 22 and later have no --security-revert for CVE-2023-46809; ` +
      `only an OpenSSL with implicit rejection (3.2 or later, bundled with Node 24) decrypts it. ` +
      `Remove BASIC128RSA15 from the OPC UA endpoint's supportedSecurityPolicies (it is obsolete), or run a Node.js built with such an OpenSSL.`,
  );
}
