import type { HttpEndpointSettings } from "../http-endpoint-settings.ts";
import { keystoreCredentials } from "./keystore-credentials.ts";
import { selfSignedCertificate } from "./self-signed-certificate.ts";

/** PEM key and certificate chain (leaf first), as node:https wants them. */
export interface TlsCredentials {
  key: string;
  cert: string;
}

/** The configured keystore when there is one, else the persisted self-signed certificate. */
export async function tlsCredentials(settings: HttpEndpointSettings, stateDir: string): Promise<TlsCredentials> {
  if (settings.certificate?.keyStorePath) return keystoreCredentials(settings.certificate);
  return selfSignedCertificate(stateDir, settings.hostname);
}
