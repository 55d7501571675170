import { X509Certificate } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type OpcUaAssetConnectionConfig, readKeyStore } from "@twinport/shared";
import { OPCUACertificateManager } from "node-opcua-certificate-manager";
import { type UserIdentityInfo, UserTokenType } from "node-opcua-client";
import { findKeyStore } from "./keystore.ts";

export interface OpcuaClientSecurity {
  certificateManager: OPCUACertificateManager;
  /** Set when the application certificate came from the configured key store. */
  certificateFile?: string;
  privateKeyFile?: string;
  /** The certificate's SAN URI: servers check the client's applicationUri against it. */
  applicationUri?: string;
  userIdentity: UserIdentityInfo;
  dispose(): Promise<void>;
}

function sanUri(pem: string): string | undefined {
  const alternative = new X509Certificate(pem).subjectAltName ?? "";
  return /URI:([^,\s]+)/.exec(alternative)?.[1];
}

/**
 * The client's PKI in FA³ST's layout under `securityBaseDir` (docs/reference/faaast-asset-connections.md §4.3):
 * pki/trusted/certs, pki/trusted/crl, pki/issuers/certs, pki/issuers/crl, pki/rejected — which is
 * node-opcua's own layout, with pki/own for the client's certificate. An unknown server certificate
 * is refused and put into pki/rejected; moving it to pki/trusted/certs trusts it from the next
 * attempt on, as in FA³ST.
 *
 * The application certificate comes from `applicationCertificate` when that key store exists;
 * otherwise node-opcua makes a self-signed one in pki/own (FA³ST writes a new PKCS12 store instead).
 */
export async function prepareClientSecurity(config: OpcUaAssetConnectionConfig): Promise<OpcuaClientSecurity> {
  const baseDir = resolve(config.securityBaseDir);
  const pki = join(baseDir, "pki");
  // node-opcua watches only folders that exist when it initializes: a certificate moved into a
  // folder made later would go unnoticed.
  for (const folder of [
    "own/certs",
    "own/private",
    "trusted/certs",
    "trusted/crl",
    "issuers/certs",
    "issuers/crl",
    "rejected",
  ])
    mkdirSync(join(pki, folder), { recursive: true });
  const certificateManager = new OPCUACertificateManager({
    rootFolder: pki,
    automaticallyAcceptUnknownCertificate: false,
  });
  await certificateManager.initialize();

  const result: OpcuaClientSecurity = {
    certificateManager,
    userIdentity: { type: UserTokenType.Anonymous },
    dispose: () => certificateManager.dispose(),
  };
  const application = findKeyStore(config.applicationCertificate.keyStorePath ?? "application.p12", baseDir);
  if (application) {
    const content = await readKeyStore(application, config.applicationCertificate, {
      where: `applicationCertificate ${application}`,
      setting: "applicationCertificate",
    });
    if (!content.key || content.certificates.length === 0)
      throw new Error(`applicationCertificate ${application}: the key store needs a private key and its certificate`);
    result.certificateFile = join(pki, "own", "certs", "application_certificate.pem");
    result.privateKeyFile = join(pki, "own", "private", "application_key.pem");
    writeFileSync(result.certificateFile, content.certificates[0]!);
    writeFileSync(result.privateKeyFile, content.key, { mode: 0o600 });
    result.applicationUri = sanUri(content.certificates[0]!);
  }

  switch (config.userTokenType) {
    case "UserName":
      result.userIdentity = {
        type: UserTokenType.UserName,
        userName: config.username ?? "",
        password: config.password ?? "",
      };
      break;
    case "Certificate": {
      const path = config.authenticationCertificate.keyStorePath ?? "authentication.p12";
      const file = findKeyStore(path, baseDir);
      if (!file)
        throw new Error(
          `authenticationCertificate: key store ${path} not found (looked in the working directory and in ${baseDir})`,
        );
      const content = await readKeyStore(file, config.authenticationCertificate, {
        where: `authenticationCertificate ${file}`,
        setting: "authenticationCertificate",
      });
      if (!content.key || content.certificates.length === 0)
        throw new Error(`authenticationCertificate ${file}: the key store needs a private key and its certificate`);
      result.userIdentity = {
        type: UserTokenType.Certificate,
        certificateData: new X509Certificate(content.certificates[0]!).raw,
        privateKey: content.key,
      };
      break;
    }
    default:
      break;
  }
  return result;
}
