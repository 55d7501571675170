import { createPrivateKey, randomUUID, X509Certificate } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { isIP } from "node:net";
import { join } from "node:path";
import { createSelfSignedCertificate, type FileLockOptions, withFileLock } from "@twinport/shared";
import type { TlsCredentials } from "./tls-credentials.ts";

export const SELF_SIGNED_KEY_FILE = "https-self-signed-key.pem";
export const SELF_SIGNED_CERT_FILE = "https-self-signed-cert.pem";
/** Held by the replica that creates or replaces the pair; the others wait for it, then read its files. */
export const SELF_SIGNED_LOCK_FILE = "https-self-signed.lock";

const VALIDITY_DAYS = 825;
/** A certificate this close to expiry is replaced at start-up rather than left to lapse while running. */
const RENEW_BEFORE_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The HTTPS certificate when none is configured: self-signed RSA 2048, for localhost, 127.0.0.1,
 * ::1 and the configured `hostname`. It is kept as PEM in `stateDir` and reused on the next start,
 * so clients that pinned or trusted it keep working; it is replaced only when missing, unreadable,
 * near expiry, not matching its key, or not covering the configured hostname.
 *
 * Replicas that share `stateDir` (compose's `--scale http-gateway=3` on a first start) must all
 * present the same certificate: the one that finds none creates it under a lock file in
 * `stateDir`, the others wait for the lock and then read that one (ADR 0022).
 */
export async function selfSignedCertificate(
  stateDir: string,
  hostname: string | undefined,
  now = new Date(),
  lock?: FileLockOptions,
): Promise<TlsCredentials> {
  const keyPath = join(stateDir, SELF_SIGNED_KEY_FILE);
  const certPath = join(stateDir, SELF_SIGNED_CERT_FILE);
  const existing = await readUsable(keyPath, certPath, hostname, now);
  if (existing) return existing;

  await mkdir(stateDir, { recursive: true });
  return withFileLock(
    join(stateDir, SELF_SIGNED_LOCK_FILE),
    async () => {
      // Checked again under the lock: the replica that held it before may have just written the pair.
      const written = await readUsable(keyPath, certPath, hostname, now);
      if (written) return written;
      const created = await createSelfSignedCertificate({
        names: subjectAltNames(hostname),
        organization: "Twinport",
        validityDays: VALIDITY_DAYS,
        now,
      });
      await writeAtomically(keyPath, created.key, 0o600);
      await writeAtomically(certPath, created.cert, 0o644);
      return created;
    },
    lock,
  );
}

/** localhost, 127.0.0.1, ::1 and the configured host name (a DNS name or an IP address). */
function subjectAltNames(hostname: string | undefined): string[] {
  const names = ["localhost", "127.0.0.1", "::1"];
  const extra = hostname?.trim();
  // First, so a host name becomes the common name too.
  if (extra && !names.includes(extra.toLowerCase())) names.unshift(extra);
  return names;
}

async function readUsable(
  keyPath: string,
  certPath: string,
  hostname: string | undefined,
  now: Date,
): Promise<TlsCredentials | undefined> {
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

/**
 * Write-then-rename, so a crash mid-write never leaves half a key that the next start would trust.
 * The scratch name is random: replicas in containers often share a pid (1) and a state volume.
 */
async function writeAtomically(path: string, text: string, mode: number): Promise<void> {
  const temporary = `${path}.${randomUUID()}.tmp`;
  await writeFile(temporary, text, { mode });
  await rename(temporary, path);
}
