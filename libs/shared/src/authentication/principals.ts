import type { RoleAssignment } from "../config/index.ts";
import type { Principal } from "../contracts/index.ts";

/**
 * The Principals the endpoints build (issue 13). Roles come from the identity itself (a token's
 * claims) and from `security.roleAssignments`, which is how identities that bring no roles of their
 * own (OPC UA users, certificates) get some.
 */
export function userPrincipal(
  name: string,
  ownRoles: readonly string[],
  assignments: readonly RoleAssignment[],
): Principal {
  const assigned = assignments.flatMap((assignment) =>
    "user" in assignment && assignment.user === name ? assignment.roles : [],
  );
  return { kind: "user", name, roles: unique([...ownRoles, ...assigned]) };
}

/** `subject`: the certificate's subject DN as subjectDistinguishedName() writes it. */
export function certificatePrincipal(subject: string, assignments: readonly RoleAssignment[]): Principal {
  const assigned = assignments.flatMap((assignment) =>
    "certificateSubject" in assignment && assignment.certificateSubject === subject ? assignment.roles : [],
  );
  return { kind: "certificate", name: subject, roles: unique(assigned) };
}

function unique(roles: readonly string[]): string[] {
  return [...new Set(roles)];
}
