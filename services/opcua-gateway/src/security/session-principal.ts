import { X509Certificate } from "node:crypto";
import { UserNameIdentityToken, X509IdentityToken, type UserIdentityToken } from "node-opcua";
import { ANONYMOUS, type Principal, type SecurityConfig } from "@twinport/shared";

/**
 * The principal of an OPC UA session, from its identity token (issue 13): a UserName token is the
 * user of that name, an X.509 token the certificate's subject DN, anything else anonymous. Roles
 * come from the configuration's roleAssignments (OPC UA identities bring none of their own).
 *
 * Written for the authorization work while the authentication branch brings its own
 * `principalOfSession`; the two are to be unified into one.
 */
export function principalOfIdentityToken(token: UserIdentityToken | undefined | null, roleAssignments: SecurityConfig["roleAssignments"]): Principal {
  if (token instanceof UserNameIdentityToken && typeof token.userName === "string" && token.userName !== "") {
    const name = token.userName;
    return { kind: "user", name, roles: rolesOf(roleAssignments, (assignment) => "user" in assignment && assignment.user === name) };
  }
  if (token instanceof X509IdentityToken && token.certificateData && token.certificateData.length > 0) {
    const name = certificateSubject(token.certificateData);
    if (name !== undefined) return { kind: "certificate", name, roles: rolesOf(roleAssignments, (assignment) => "certificateSubject" in assignment && assignment.certificateSubject === name) };
  }
  return ANONYMOUS;
}

function rolesOf(assignments: SecurityConfig["roleAssignments"], matches: (assignment: SecurityConfig["roleAssignments"][number]) => boolean): string[] {
  return [...new Set(assignments.filter(matches).flatMap((assignment) => assignment.roles))];
}

/**
 * The subject DN as RFC 4514 writes it: the certificate's last RDN first, comma-separated (Node
 * lists them in certificate order, one per line).
 */
export function certificateSubject(der: Buffer): string | undefined {
  try {
    return new X509Certificate(der).subject.split("\n").reverse().join(",");
  } catch {
    return undefined;
  }
}
