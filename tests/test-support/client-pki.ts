/**
 * Certificates for mutual-TLS tests, made with the openssl CLI: a CA and a client certificate it
 * issued, in a directory of their own.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface ClientCredentials {
  /** PEM of the client certificate and its key, as https.Agent's cert and key. */
  cert: string;
  key: string;
  /** Its subject as Twinport names it (RFC 4514, as `openssl x509 -nameopt RFC2253` prints it). */
  subject: string;
}

export interface TestCa {
  /** The CA's certificate file (PEM): what `trustedCaFiles` lists. */
  certFile: string;
  /**
   * `withoutAuthorityKeyId`: no authorityKeyIdentifier, so a verifier finds the issuer by name
   * alone (and checks the signature against any CA of that name).
   */
  issue(name: string, subject: string, options?: { withoutAuthorityKeyId?: boolean }): ClientCredentials;
}

const openssl = (args: string[]) => execFileSync("openssl", args, { stdio: "pipe", encoding: "utf8" });

/**
 * `keyType` "rsa": RSA 2048 keys for the CA and what it issues (the default is EC P-256). OpenSSL's
 * failed RSA signature check behaves otherwise than an ECDSA one (it is left on the error queue).
 */
export function createTestCa(dir: string, name: string, subject: string, keyType: "ec" | "rsa" = "ec"): TestCa {
  const newKey = keyType === "rsa" ? ["-newkey", "rsa:2048"] : ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"];
  const certFile = join(dir, `${name}-ca.pem`);
  const keyFile = join(dir, `${name}-ca.key`);
  openssl([
    "req",
    "-x509",
    ...newKey,
    "-nodes",
    "-keyout",
    keyFile,
    "-out",
    certFile,
    "-days",
    "2",
    "-subj",
    subject,
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  return {
    certFile,
    issue(client, clientSubject, { withoutAuthorityKeyId = false } = {}) {
      const key = join(dir, `${client}.key`);
      const csr = join(dir, `${client}.csr`);
      const cert = join(dir, `${client}.pem`);
      const ext = join(dir, `${client}.ext`);
      openssl([
        "req",
        "-new",
        ...newKey,
        "-nodes",
        "-keyout",
        key,
        "-out",
        csr,
        // UTF-8 names (CN=röbot) as they are: without it openssl reads the bytes as Latin-1.
        "-utf8",
        "-subj",
        clientSubject,
      ]);
      execFileSync("sh", [
        "-c",
        `printf 'basicConstraints=CA:FALSE\\nkeyUsage=critical,digitalSignature\\nextendedKeyUsage=clientAuth\\n${withoutAuthorityKeyId ? "authorityKeyIdentifier=none\\n" : ""}' > '${ext}'`,
      ]);
      openssl([
        "x509",
        "-req",
        "-in",
        csr,
        "-CA",
        certFile,
        "-CAkey",
        keyFile,
        "-CAcreateserial",
        "-out",
        cert,
        "-days",
        "2",
        "-extfile",
        ext,
      ]);
      const subjectLine = openssl(["x509", "-in", cert, "-noout", "-subject", "-nameopt", "RFC2253"])
        .trim()
        .replace(/^subject=/, "");
      return { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8"), subject: subjectLine };
    },
  };
}
