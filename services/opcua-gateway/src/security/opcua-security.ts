import type { OpcUaEndpointConfig } from "@twinport/shared";
import type { OPCUAServer, OPCUAServerOptions } from "node-opcua";
import type { LogLine } from "../node-opcua-logging.ts";
import { endpointSecurity, userNameCheck, userTokenTypes } from "../security-settings.ts";
import { discoveryRegistration, logDiscoveryRegistration } from "./discovery-registration.ts";
import { assertBasic128Rsa15Servable } from "./rsa-pkcs1-decryption.ts";
import {
  assertServerKeyPresent,
  ensureServerCertificate,
  SERVER_APPLICATION_NAME,
  serverCertificateFilesOf,
} from "./server-certificate.ts";
import { SpecLayoutCertificateManager } from "./spec-layout-certificate-manager.ts";
import { restrictUserTokenPolicies } from "./user-token-policies.ts";

export interface OpcuaSecurityOptions {
  endpoint: OpcUaEndpointConfig;
  /** The host name advertised in endpoint URLs; also names the certificate files. */
  hostname: string;
  log: LogLine;
}

/** The security-related OPCUAServer options, ready to spread into the constructor's. */
export type OpcuaSecurityServerOptions = Pick<
  OPCUAServerOptions,
  | "serverCertificateManager"
  | "userCertificateManager"
  | "certificateFile"
  | "privateKeyFile"
  | "serverInfo"
  | "securityPolicies"
  | "securityModes"
  | "allowAnonymous"
  | "userManager"
  | "registerServerMethod"
  | "discoveryServerEndpointUrl"
>;

export interface OpcuaSecurity {
  serverOptions: OpcuaSecurityServerOptions;
  /** After server.initialize(): only the configured token types advertised; discovery logged. */
  applyTo(server: OPCUAServer): void;
  /** Closes both certificate stores (their file watchers); after the server's shutdown. */
  dispose(): Promise<void>;
}

/**
 * Everything spec §2.4 and §5.1 configure, made ready before the server exists: both PKI stores
 * in the spec's layout (opened, so their watchers run), the server certificate and key
 * (created when missing), policies and modes, and who may open a session.
 */
export async function prepareOpcuaSecurity(options: OpcuaSecurityOptions): Promise<OpcuaSecurity> {
  const { endpoint, hostname, log } = options;
  // Before any folder or store is opened: a policy this runtime cannot serve is a start-up error.
  assertBasic128Rsa15Servable(endpoint.supportedSecurityPolicies);
  const files = serverCertificateFilesOf(endpoint.serverCertificateBasePath, endpoint.hostname, hostname);
  assertServerKeyPresent(files);
  const serverCertificateManager = new SpecLayoutCertificateManager({
    base: endpoint.serverCertificateBasePath,
    kind: "server",
    privateKeyFile: files.privateKeyFile,
  });
  const userCertificateManager = new SpecLayoutCertificateManager({
    base: endpoint.userCertificateBasePath,
    kind: "user",
    refuseAll: !endpoint.supportedAuthentications.includes("Certificate"),
  });
  const dispose = async () => {
    await Promise.allSettled([serverCertificateManager.dispose(), userCertificateManager.dispose()]);
  };

  try {
    await Promise.all([serverCertificateManager.open(), userCertificateManager.open()]);
    const certificate = await ensureServerCertificate(serverCertificateManager, files, {
      hostname,
      host: endpoint.host,
      hostnameConfigured: endpoint.hostname !== undefined,
    });
    if (certificate.created) log(`opcua-gateway: created the server certificate ${files.certificateFile}`);
    if (certificate.replaced)
      log(
        `opcua-gateway: replaced the server certificate ${files.certificateFile} (self-signed by an earlier Twinport, same key): its subject alternative names lacked ${certificate.replaced.join(", ")}; clients that trusted the old certificate must trust the new one`,
      );
    const security = endpointSecurity(endpoint);
    const secured = endpoint.supportedAuthentications.filter((authentication) => authentication !== "Anonymous");
    if (secured.length > 0 && !endpoint.supportedSecurityPolicies.some((policy) => policy !== "NONE")) {
      // node-opcua offers passwords and user certificates only under a policy that protects them.
      log(
        `opcua-gateway: warning: ${secured.join(" and ")} authentication needs a security policy besides NONE in supportedSecurityPolicies; with NONE alone no client can log in that way`,
      );
    }
    const isValidUser = userNameCheck(endpoint);
    const allowedTokens = userTokenTypes(endpoint);
    return {
      serverOptions: {
        serverCertificateManager,
        userCertificateManager,
        certificateFile: files.certificateFile,
        privateKeyFile: files.privateKeyFile,
        serverInfo: {
          applicationUri: certificate.applicationUri,
          applicationName: { text: SERVER_APPLICATION_NAME, locale: "en" },
        },
        securityPolicies: security.securityPolicies,
        securityModes: security.securityModes,
        allowAnonymous: security.allowAnonymous,
        userManager: { isValidUser: (userName: string, password: string) => isValidUser(userName, password) },
        ...discoveryRegistration(endpoint),
      },
      applyTo(server) {
        restrictUserTokenPolicies(server, allowedTokens);
        logDiscoveryRegistration(server, endpoint, log);
      },
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}
