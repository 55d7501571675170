import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Test support: certificates and PKCS#12 key stores made by the openssl command line, as operators
 * make them (`openssl pkcs12 -export`), so the readers are tested against a second implementation
 * instead of the library that reads them.
 */

/** openssl's own configuration, whatever a library loaded into this process set OPENSSL_CONF to. */
const OPENSSL_ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "OPENSSL_CONF"));

export interface Certified {
  keyFile: string;
  certFile: string;
  key: string;
  cert: string;
  fingerprint: string;
}

export type KeyAlgorithm = "rsa" | "ec";

const KEY_OPTIONS: Record<KeyAlgorithm, string[]> = {
  rsa: ["-newkey", "rsa:2048"],
  ec: ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"],
};

function openssl(args: string[]): void {
  try {
    execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"], env: OPENSSL_ENV });
  } catch (error) {
    throw new Error(`openssl ${args.join(" ")} failed: ${String((error as { stderr?: Buffer }).stderr ?? error)}`);
  }
}

function certified(keyFile: string, certFile: string): Certified {
  const cert = readFileSync(certFile, "utf8");
  return {
    keyFile,
    certFile,
    key: readFileSync(keyFile, "utf8"),
    cert,
    fingerprint: new X509Certificate(cert).fingerprint256,
  };
}

/**
 * A self-signed certificate for 127.0.0.1, ::1 and localhost (plus `name`), or a CA when `ca` is
 * set; `extensions` (openssl -addext values) replace the subject alternative name.
 */
export function opensslCertificate(
  dir: string,
  name: string,
  algorithm: KeyAlgorithm = "rsa",
  options: { ca?: boolean; extensions?: string[] } = {},
): Certified {
  const keyFile = join(dir, `${name}.key.pem`);
  const certFile = join(dir, `${name}.cert.pem`);
  const extensions = options.ca
    ? ["-addext", "basicConstraints=critical,CA:TRUE"]
    : (options.extensions ?? [`subjectAltName=DNS:localhost,DNS:${name},IP:127.0.0.1,IP:::1`]).flatMap((extension) => [
        "-addext",
        extension,
      ]);
  openssl([
    "req",
    "-x509",
    ...KEY_OPTIONS[algorithm],
    "-nodes",
    "-keyout",
    keyFile,
    "-out",
    certFile,
    "-days",
    "2",
    "-subj",
    `/CN=${name}`,
    ...extensions,
  ]);
  return certified(keyFile, certFile);
}

/** A server certificate for 127.0.0.1 and localhost, issued by `ca`. */
export function opensslIssuedCertificate(
  dir: string,
  name: string,
  ca: Certified,
  algorithm: KeyAlgorithm = "rsa",
): Certified {
  const keyFile = join(dir, `${name}.key.pem`);
  const certFile = join(dir, `${name}.cert.pem`);
  const request = join(dir, `${name}.csr`);
  const extensions = join(dir, `${name}.ext`);
  openssl([
    "req",
    "-new",
    ...KEY_OPTIONS[algorithm],
    "-nodes",
    "-keyout",
    keyFile,
    "-out",
    request,
    "-subj",
    `/CN=${name}`,
  ]);
  writeFileSync(extensions, `subjectAltName=DNS:localhost,DNS:${name},IP:127.0.0.1\nbasicConstraints=CA:FALSE\n`);
  openssl([
    "x509",
    "-req",
    "-in",
    request,
    "-CA",
    ca.certFile,
    "-CAkey",
    ca.keyFile,
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    extensions,
    "-out",
    certFile,
  ]);
  return certified(keyFile, certFile);
}

export interface Pkcs12Options {
  storePassword: string;
  /** A key password of its own: written with -twopass (the MAC takes the store password, the contents this one). */
  keyPassword?: string;
  /** RC2-40 certificates, 3DES key, SHA-1 MAC: what keytool before Java 8u301/11.0.12 and `-legacy` write. */
  legacy?: boolean;
  alias?: string;
  /** More certificates for the store (a CA, or a trust store's certificates). */
  extraCertificates?: Certified[];
  /** A trust store: certificates only, no key. */
  certificatesOnly?: boolean;
}

/** `openssl pkcs12 -export` of `entry` into `file`. */
export function opensslPkcs12(file: string, entry: Certified, options: Pkcs12Options): string {
  const args = ["pkcs12", "-export", "-in", entry.certFile, "-out", file];
  if (options.certificatesOnly) args.push("-nokeys");
  else args.push("-inkey", entry.keyFile);
  if (options.alias !== undefined) args.push("-name", options.alias);
  if (options.legacy) args.push("-legacy");
  if (options.extraCertificates?.length) {
    const extra = `${file}.extra.pem`;
    writeFileSync(extra, options.extraCertificates.map((certificate) => certificate.cert).join(""));
    args.push("-certfile", extra);
  }
  if (options.keyPassword === undefined) {
    openssl([...args, "-passout", `pass:${options.storePassword}`]);
    return file;
  }
  // -twopass reads both passwords from the terminal only (MAC first, then the export password), so it runs under script(1)'s pseudo-terminal.
  const answers = `${options.storePassword}\n${options.storePassword}\n${options.keyPassword}\n${options.keyPassword}\n`;
  execFileSync("script", ["-qec", ["openssl", ...args, "-twopass"].map(shellQuote).join(" "), "/dev/null"], {
    input: answers,
    stdio: ["pipe", "ignore", "pipe"],
    env: OPENSSL_ENV,
  });
  return file;
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
