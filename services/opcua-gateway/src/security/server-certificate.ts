import { createPrivateKey, randomUUID, X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { hostname as machineHostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { withFileLock } from "@twinport/shared";
import { extractFullyQualifiedDomainName } from "node-opcua";
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
 * The files of spec §5.1.5, `…@{hostname}_2048.der` and `.pem`, where `{hostname}` is the machine
 * host name (where an operator puts a certificate of their own), or the configured `hostname`:
 * replicas that share one mounted certificate set the same `hostname` and so look for the same
 * name. Twinport before 2026-11-27 named the files after the advertised host (the bind address
 * when one was given): such a pair is still used when it is there and the spec's name is not, so
 * an upgrade keeps the certificate clients already trust.
 */
export function serverCertificateFilesOf(
  serverCertificateBasePath: string,
  configuredHostname: string | undefined,
  advertisedHostname: string,
): ServerCertificateFiles {
  const named = serverCertificateFiles(serverCertificateBasePath, configuredHostname ?? machineHostname());
  if (configuredHostname !== undefined || existsSync(named.certificateFile)) return named;
  const earlier = serverCertificateFiles(serverCertificateBasePath, advertisedHostname);
  return existsSync(earlier.certificateFile) ? earlier : named;
}

/** The pair of files named after `hostname` (see serverCertificateFilesOf). */
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
  /**
   * Whether the operator configured `hostname` (compose, Kubernetes): then the machine's own name is
   * a container's, differs per replica and is no name clients use.
   */
  hostnameConfigured?: boolean;
}

/** The subject alternative names a certificate of ours carries, and which of them it must carry. */
export interface ServerCertificateNames {
  dns: string[];
  ip: string[];
  /** Names whose absence makes us replace a certificate of ours (see ensureServerCertificate). */
  required: string[];
}

/**
 * The names node-opcua's start-up check (NODE-OPCUA-W26) expects in the SAN: the machine's FQDN and
 * os.hostname() always, plus `alternateHostname` (our bind host when a different hostname is
 * advertised). Beyond that: the advertised hostname itself, and localhost / 127.0.0.1 because a client
 * on the same machine uses them whatever is advertised.
 */
export async function serverCertificateNames(options: ServerCertificateOptions): Promise<ServerCertificateNames> {
  const advertised = [options.hostname, ...(isUnspecified(options.host) ? [] : [options.host])];
  const machine = [machineHostname(), await extractFullyQualifiedDomainName()];
  const names = [...advertised, ...machine, "localhost", "127.0.0.1"].filter((name) => name !== "");
  const required = [...advertised, ...(options.hostnameConfigured ? [] : machine), "localhost", "127.0.0.1"];
  return {
    dns: [...new Set(names.filter((name) => isIP(name) === 0))],
    ip: [...new Set(names.filter((name) => isIP(name) !== 0))],
    required: [...new Set(required.filter((name) => name !== ""))],
  };
}

/**
 * Creates the self-signed server certificate (RSA 2048, from the key the manager generated in
 * `private/`) when the file is missing; a present one is used as it is, except one Twinport made
 * itself (self-signed, our subject) that lacks a required name: versions before issue 14 put only
 * the advertised hostname and 127.0.0.1 in the SAN, and node-opcua then warned W26 about the
 * machine's name. That certificate is replaced with the same key and application URI (clients that
 * pinned the old one must trust the new one); one the operator brought is never touched. Returns the application URI the server must announce: the
 * certificate's own, since clients compare the two.
 *
 * Replicas sharing the PKI folder (compose's `--scale opcua-gateway=2` on a first start) must end
 * up with one certificate: node-opcua creates the key under its own lock, and the certificate is
 * made here under a lock beside it, so the replicas that wait find the file and use it (ADR 0022).
 * The machine's name is no reason to replace when a hostname is configured: replicas share the
 * configured name but each container has its own, and they would take turns replacing the file.
 */
export async function ensureServerCertificate(
  manager: SpecLayoutCertificateManager,
  files: ServerCertificateFiles,
  options: ServerCertificateOptions,
): Promise<{ applicationUri: string; created: boolean; replaced?: string[] }> {
  const names = await serverCertificateNames(options);
  const present = () => (existsSync(files.certificateFile) ? existingCertificate(files, options, names) : undefined);
  const first = present();
  if (first && first.missing.length === 0) return { applicationUri: first.applicationUri, created: false };
  return withFileLock(`${files.certificateFile}.lock`, async () => {
    const current = present();
    if (!current)
      return createServerCertificate(manager, files, options, names, defaultApplicationUri(options.hostname));
    if (current.missing.length === 0) return { applicationUri: current.applicationUri, created: false };
    const created = await createServerCertificate(manager, files, options, names, current.applicationUri);
    return { ...created, created: false, replaced: current.missing };
  });
}

function existingCertificate(
  files: ServerCertificateFiles,
  options: ServerCertificateOptions,
  names: ServerCertificateNames,
): { applicationUri: string; missing: string[] } {
  const certificate = readCertificate(files.certificateFile);
  if (!certificate.checkPrivateKey(createPrivateKey(readFileSync(files.privateKeyFile)))) {
    throw new Error(
      `The OPC UA server certificate "${files.certificateFile}" does not belong to the private key "${files.privateKeyFile}".`,
    );
  }
  const applicationUri = applicationUriOf(certificate) ?? defaultApplicationUri(options.hostname);
  if (!isOurOwn(certificate, options.hostname)) return { applicationUri, missing: [] };
  const san = subjectAltNames(certificate);
  const missing = names.required.filter((name) => !san.includes(name));
  return { applicationUri, missing };
}

/** Self-signed with the subject createServerCertificate writes: a certificate an operator brings has its own. */
function isOurOwn(certificate: X509Certificate, hostname: string): boolean {
  return (
    certificate.issuer === certificate.subject &&
    certificate.verify(certificate.publicKey) &&
    certificate.subject.split("\n").includes(`CN=${SERVER_APPLICATION_NAME}@${hostname}`) &&
    certificate.subject.split("\n").includes("O=Twinport")
  );
}

/** DNS names and IP addresses of the subject alternative name, without their `DNS:` / `IP Address:` prefixes. */
export function subjectAltNames(certificate: X509Certificate): string[] {
  return (certificate.subjectAltName ?? "")
    .split(/,\s*/)
    .map((entry) => /^(?:DNS|IP Address):(.*)$/.exec(entry)?.[1])
    .filter((name): name is string => name !== undefined);
}

async function createServerCertificate(
  manager: SpecLayoutCertificateManager,
  files: ServerCertificateFiles,
  options: ServerCertificateOptions,
  names: ServerCertificateNames,
  applicationUri: string,
): Promise<{ applicationUri: string; created: boolean }> {
  // node-opcua writes PEM; the spec's file is DER, so it goes through a scratch folder first.
  const scratch = mkdtempSync(join(tmpdir(), "twinport-server-certificate-"));
  try {
    const pemFile = join(scratch, "certificate.pem");
    await manager.createSelfSignedCertificate({
      applicationUri,
      dns: names.dns,
      ip: names.ip,
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
