import { X509Certificate } from "node:crypto";
import { AnonymousIdentityToken, UserNameIdentityToken, X509IdentityToken, type ISessionBase } from "node-opcua";
import { ANONYMOUS, certificatePrincipal, subjectDistinguishedName, userPrincipal, type Principal, type RoleAssignment } from "@twinport/shared";

/** Per identity token (one per ActivateSession, so a re-activation with another identity is seen). */
const known = new WeakMap<object, { assignments: readonly RoleAssignment[]; principal: Principal }>();

/**
 * Who an OPC UA session is, as the same Principal HTTP builds (issue 13), from the identity its
 * last ActivateSession proved (node-opcua checked it before: the password against `userMap`, the
 * certificate against the USERS_PKI trust list):
 * - UserName: kind "user" named by the user name;
 * - Certificate (X509IdentityToken): kind "certificate" named by its subject DN (RFC 4514, as
 *   subjectDistinguishedName writes it, the form HTTP client certificates get too);
 * - Anonymous, no session (a server-internal write) or an identity of another kind: ANONYMOUS.
 * Roles come from `security.roleAssignments` (OPC UA identities bring none of their own).
 */
export function principalOfSession(session: ISessionBase | undefined, assignments: readonly RoleAssignment[]): Principal {
  const token = session?.userIdentityToken;
  if (token === undefined || token === null || token instanceof AnonymousIdentityToken) return ANONYMOUS;
  const cached = known.get(token);
  if (cached !== undefined && cached.assignments === assignments) return cached.principal;
  let principal: Principal = ANONYMOUS;
  if (token instanceof UserNameIdentityToken && typeof token.userName === "string" && token.userName !== "") {
    principal = userPrincipal(token.userName, [], assignments);
  } else if (token instanceof X509IdentityToken && token.certificateData) {
    principal = certificatePrincipal(subjectDistinguishedName(new X509Certificate(token.certificateData)), assignments);
  }
  known.set(token, { assignments, principal });
  return principal;
}

/** principalOfSession bound to the configuration's role assignments. */
export type SessionPrincipals = (session: ISessionBase | undefined) => Principal;

export function sessionPrincipals(assignments: readonly RoleAssignment[]): SessionPrincipals {
  return (session) => principalOfSession(session, assignments);
}
