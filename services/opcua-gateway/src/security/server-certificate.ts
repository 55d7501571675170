import { createPrivateKey, randomUUID, X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { withFileLock } from "@twinport/shared";
import { PKI_FOLDERS } from "./pki-layout.ts";
import type { SpecLayoutCertificateManager } from "./spec-layout-certificate-manager.ts";

/** Spec §5.1's "<vendor> AAS OPC UA Server": the application name in the file names and the certificate. */
export const SERVER_APPLICATION_NAME = "Twinport AAS OPC UA Server";

export interface ServerCertificateFiles {
  /** `{base}/private/Twinport AAS OPC UA Server@{hostname}_2048.der` */
  certificateFile: string;
  /** The same name with `.pem`: the PEM private key. */
  privateKeyFile: string;
}

/**
 * The files spec §5.1 names. `hostname` is the one advertised in endpoint URLs (by default the
 * machine's): replicas that share one mounted certificate set the same `hostname` and so look
 * for the same file name.
 */
export function serverCertificateFiles(serverCertificateBasePath: string, hostname: string): ServerCertificateFiles {
  const stem = join(
    resolve(serverCertificateBasePath),
    PKI_FOLDERS.private,
    `${SERVER_APPLICATION_NAME}@${hostname}_2048`,
  );
  return { certificateFile: `${stem}.der`, privateKeyFile: `${stem}.pem` };
}

/** Our application URI; a certificate brought by the operator keeps its own (see applicationUriOf). */
export function defaultApplicationUri(hostname: string): string {
  return `urn:${hostname}:Twinport:AAS-OPC-UA-Server`;
}

/**
 * Must run before the certificate manager opens: it would generate a fresh key next to a
 * certificate whose key went missing, and every secure channel would then fail on a mismatch.
 */
export function assertServerKeyPresent(files: ServerCertificateFiles): void {
  if (existsSync(files.certificateFile) && !existsSync(files.privateKeyFile)) {
    throw new Error(
      `The OPC UA server certificate "${files.certificateFile}" is present but its private key "${files.privateKeyFile}" is missing: add the key, or remove the certificate to have a new pair created.`,
    );
  }
}

export interface ServerCertificateOptions {
  hostname: string;
  /** Bind address; an unspecified one (0.0.0.0, ::) is not an address a client can use. */
  host: string;
}

/**
 * Creates the self-signed server certificate (RSA 2048, from the key the manager generated in
 * `private/`) when the file is missing; a present one is used as it is. Returns the application
 * URI the server must announce: the certificate's own, since clients compare the two.
 *
 * Replicas sharing the PKI folder (compose's `--scale opcua-gateway=2` on a first start) must end
 * up with one certificate: node-opcua creates the key under its own lock, and the certificate is
 * made here under a lock beside it, so the replicas that wait find the file and use it (ADR 0022).
 */
export async function ensureServerCertificate(
  manager: SpecLayoutCertificateManager,
  files: ServerCertificateFiles,
  options: ServerCertificateOptions,
): Promise<{ applicationUri: string; created: boolean }> {
  if (existsSync(files.certificateFile)) return existingCertificate(files, options);
  return withFileLock(`${files.certificateFile}.lock`, async () => {
    if (existsSync(files.certificateFile)) return existingCertificate(files, options);
    return createServerCertificate(manager, files, options);
  });
}

function existingCertificate(
  files: ServerCertificateFiles,
  options: ServerCertificateOptions,
): { applicationUri: string; created: boolean } {
  const certificate = readCertificate(files.certificateFile);
  if (!certificate.checkPrivateKey(createPrivateKey(readFileSync(files.privateKeyFile)))) {
    throw new Error(
      `The OPC UA server certificate "${files.certificateFile}" does not belong to the private key "${files.privateKeyFile}".`,
    );
  }
  return { applicationUri: applicationUriOf(certificate) ?? defaultApplicationUri(options.hostname), created: false };
}

async function createServerCertificate(
  manager: SpecLayoutCertificateManager,
  files: ServerCertificateFiles,
  options: ServerCertificateOptions,
): Promise<{ applicationUri: string; created: boolean }> {
  const applicationUri = defaultApplicationUri(options.hostname);
  const names = [options.hostname, ...(isUnspecified(options.host) ? [] : [options.host]), "127.0.0.1"];
  const ip = [...new Set(names.filter((name) => isIP(name) !== 0))];
  const dns = [...new Set(names.filter((name) => isIP(name) === 0))];
  // node-opcua writes PEM; the spec's file is DER, so it goes through a scratch folder first.
  const scratch = mkdtempSync(join(tmpdir(), "twinport-server-certificate-"));
  try {
    const pemFile = join(scratch, "certificate.pem");
    await manager.createSelfSignedCertificate({
      applicationUri,
      dns,
      ip,
      subject: `/CN=${SERVER_APPLICATION_NAME}@${options.hostname}/O=Twinport`,
      startDate: new Date(),
      validity: 10 * 365,
      outputFile: pemFile,
    });
    // Renamed into place: a replica that finds the file without taking the lock never reads half of it.
    const partial = `${files.certificateFile}.${randomUUID()}.tmp`;
    writeFileSync(partial, new X509Certificate(readFileSync(pemFile)).raw);
    renameSync(partial, files.certificateFile);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return { applicationUri, created: true };
}

/** DER (the spec's format) or PEM, whichever the operator put there. */
export function readCertificate(file: string): X509Certificate {
  return new X509Certificate(readFileSync(file));
}

/** The `URI:` entry of the subject alternative name, which OPC UA uses as the application URI. */
export function applicationUriOf(certificate: X509Certificate): string | undefined {
  const entry = certificate.subjectAltName?.split(/,\s*/).find((name) => name.startsWith("URI:"));
  return entry?.slice("URI:".length);
}

function isUnspecified(host: string): boolean {
  return host === "0.0.0.0" || host === "::";
}
