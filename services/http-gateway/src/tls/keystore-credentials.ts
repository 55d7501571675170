import { type KeyStoreSettings, readKeyStore } from "@twinport/shared";
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
  const content = await readKeyStore(settings.keyStorePath, settings, { where, setting: "certificate" });
  if (content.key === undefined) throw new Error(`${where} holds no private key (certificate.keyStorePath)`);
  return { key: content.key, cert: content.chain.join("") };
}
