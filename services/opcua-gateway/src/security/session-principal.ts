import { X509Certificate } from "node:crypto";
import {
  ANONYMOUS,
  certificatePrincipal,
  type Principal,
  type SecurityConfig,
  subjectDistinguishedName,
  userPrincipal,
} from "@twinport/shared";
import { type ISessionBase, type UserIdentityToken, UserNameIdentityToken, X509IdentityToken } from "node-opcua";

type RoleAssignments = SecurityConfig["roleAssignments"];

/** Per identity token (one per ActivateSession, so a re-activation with another identity is seen). */
const known = new WeakMap<object, { assignments: RoleAssignments; principal: Principal }>();

/**
 * Who an OPC UA session is, as the same Principal HTTP builds (issue 13), from the identity its
 * last ActivateSession proved (node-opcua checked it before: the password against `userMap`, the
 * certificate against the USERS_PKI trust list):
 * - UserName: kind "user" named by the user name;
 * - Certificate (X509IdentityToken): kind "certificate" named by its subject DN in the RFC 4514
 *   form HTTP client certificates get too (subjectDistinguishedName: what `openssl x509 -noout
 *   -subject -nameopt RFC2253` prints);
 * - Anonymous, no session (a server-internal write), an unreadable certificate or an identity of
 *   another kind: ANONYMOUS.
 * Roles come from `security.roleAssignments` (OPC UA identities bring none of their own).
 */
export function principalOfSession(session: ISessionBase | undefined, roleAssignments: RoleAssignments): Principal {
  return principalOfIdentityToken(session?.userIdentityToken, roleAssignments);
}

/** principalOfSession for the identity token itself. */
export function principalOfIdentityToken(
  token: UserIdentityToken | undefined | null,
  roleAssignments: RoleAssignments,
): Principal {
  if (token === undefined || token === null) return ANONYMOUS;
  const cached = known.get(token);
  if (cached !== undefined && cached.assignments === roleAssignments) return cached.principal;
  let principal: Principal = ANONYMOUS;
  if (token instanceof UserNameIdentityToken && typeof token.userName === "string" && token.userName !== "") {
    principal = userPrincipal(token.userName, [], roleAssignments);
  } else if (token instanceof X509IdentityToken && token.certificateData && token.certificateData.length > 0) {
    const name = certificateSubject(token.certificateData);
    if (name !== undefined) principal = certificatePrincipal(name, roleAssignments);
  }
  known.set(token, { assignments: roleAssignments, principal });
  return principal;
}

/** The subject DN of a DER certificate (subjectDistinguishedName), or undefined when it does not parse. */
export function certificateSubject(der: Buffer): string | undefined {
  try {
    return subjectDistinguishedName(new X509Certificate(der));
  } catch {
    return undefined;
  }
}
