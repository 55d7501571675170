import { MessageSecurityMode, SecurityPolicy } from "node-opcua";
import type { OpcUaEndpointConfig, OpcUaSecurityPolicy } from "@twinport/shared";

/** Spec §2.4 names → node-opcua's policy URIs. */
const POLICY: Record<OpcUaSecurityPolicy, SecurityPolicy> = {
  NONE: SecurityPolicy.None,
  BASIC128RSA15: SecurityPolicy.Basic128Rsa15,
  BASIC256: SecurityPolicy.Basic256,
  BASIC256SHA256: SecurityPolicy.Basic256Sha256,
  AES128_SHA256_RSAOAEP: SecurityPolicy.Aes128_Sha256_RsaOaep,
  AES256_SHA256_RSAPSS: SecurityPolicy.Aes256_Sha256_RsaPss,
};

export interface EndpointSecurity {
  securityPolicies: SecurityPolicy[];
  securityModes: MessageSecurityMode[];
  allowAnonymous: boolean;
}

/**
 * None/None when NONE is configured, plus Sign and SignAndEncrypt for each other policy
 * (node-opcua pairs every policy with every mode, and only None with the None mode).
 */
export function endpointSecurity(endpoint: OpcUaEndpointConfig): EndpointSecurity {
  const policies = [...new Set(endpoint.supportedSecurityPolicies)];
  const modes: MessageSecurityMode[] = [];
  if (policies.includes("NONE")) modes.push(MessageSecurityMode.None);
  if (policies.some((policy) => policy !== "NONE")) modes.push(MessageSecurityMode.Sign, MessageSecurityMode.SignAndEncrypt);
  return {
    securityPolicies: policies.map((policy) => POLICY[policy]),
    securityModes: modes,
    allowAnonymous: endpoint.supportedAuthentications.includes("Anonymous"),
  };
}

/** UserName logins are checked against `userMap`, and only when UserName is configured. */
export function userNameCheck(endpoint: OpcUaEndpointConfig): (userName: string, password: string) => boolean {
  const enabled = endpoint.supportedAuthentications.includes("UserName");
  return (userName, password) => enabled && Object.hasOwn(endpoint.userMap, userName) && endpoint.userMap[userName] === password;
}
