import { createHash, timingSafeEqual } from "node:crypto";
import type { OpcUaAuthentication, OpcUaEndpointConfig, OpcUaSecurityPolicy } from "@twinport/shared";
import { MessageSecurityMode, SecurityPolicy, UserTokenType } from "node-opcua";

/** Spec §2.4 names → node-opcua's policy URIs. */
const POLICY: Record<OpcUaSecurityPolicy, SecurityPolicy> = {
  NONE: SecurityPolicy.None,
  BASIC128RSA15: SecurityPolicy.Basic128Rsa15,
  BASIC256: SecurityPolicy.Basic256,
  BASIC256SHA256: SecurityPolicy.Basic256Sha256,
  AES128_SHA256_RSAOAEP: SecurityPolicy.Aes128_Sha256_RsaOaep,
  AES256_SHA256_RSAPSS: SecurityPolicy.Aes256_Sha256_RsaPss,
};

/** Spec §5.1 authentication names → the identity token types a session may present. */
const TOKEN_TYPE: Record<OpcUaAuthentication, UserTokenType> = {
  Anonymous: UserTokenType.Anonymous,
  UserName: UserTokenType.UserName,
  Certificate: UserTokenType.Certificate,
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
  if (policies.some((policy) => policy !== "NONE"))
    modes.push(MessageSecurityMode.Sign, MessageSecurityMode.SignAndEncrypt);
  return {
    securityPolicies: policies.map((policy) => POLICY[policy]),
    securityModes: modes,
    allowAnonymous: endpoint.supportedAuthentications.includes("Anonymous"),
  };
}

/** The identity token types this endpoint advertises and accepts. */
export function userTokenTypes(endpoint: OpcUaEndpointConfig): UserTokenType[] {
  return [...new Set(endpoint.supportedAuthentications)].map((authentication) => TOKEN_TYPE[authentication]);
}

/** Fixed-length digests, so the comparison takes the same time whatever the password. */
const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

/** UserName logins are checked against `userMap`, and only when UserName is configured. */
export function userNameCheck(endpoint: OpcUaEndpointConfig): (userName: string, password: string) => boolean {
  const enabled = endpoint.supportedAuthentications.includes("UserName");
  return (userName, password) => {
    if (!enabled || !Object.hasOwn(endpoint.userMap, userName)) return false;
    return timingSafeEqual(digest(endpoint.userMap[userName]!), digest(password));
  };
}
