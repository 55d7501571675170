import { ConfigError, type KeyStoreSettings, readKeyStore } from "@twinport/shared";
import type { TlsCredentials } from "./tls-credentials.ts";

export interface KeystoreSettings extends KeyStoreSettings {
  keyStorePath: string;
}

/**
 * The HTTPS key and certificate chain from the configured key store (spec §2.3 CertificateInfo:
 * PKCS12, as FA³ST users configure it; PEM too). Every failure is an Error naming the setting.
 */
export async function keystoreCredentials(settings: KeystoreSettings): Promise<TlsCredentials> {
  const where = `HTTPS keystore ${settings.keyStorePath}`;
  // A key store that cannot be read (missing, not PKCS12 or PEM, a wrong password, no key) is a
  // configuration mistake: the process exits with 2, as for any bad setting, not 1.
  let content: Awaited<ReturnType<typeof readKeyStore>>;
  try {
    content = await readKeyStore(settings.keyStorePath, settings, { where, setting: "certificate" });
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  if (content.key === undefined) throw new ConfigError(`${where} holds no private key (certificate.keyStorePath)`);
  return { key: content.key, cert: content.chain.join("") };
}
