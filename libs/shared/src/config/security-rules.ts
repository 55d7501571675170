import { z } from "zod";
import { parseIdShortPath } from "../aas/index.ts";
import { canonicalDistinguishedName } from "./distinguished-name-spelling.ts";

/**
 * A certificate subject as configured: a distinguished name (`CN=…,O=…`), compared in one spelling
 * whether it was copied with OpenSSL's escapes of non-ASCII characters or written plainly.
 */
const certificateSubjectSchema = z
  .string()
  .min(1)
  // An attribute name or, for one OpenSSL has no name for, its OID (RFC 4514: "2.5.4.3=robot").
  .refine((dn) => /^([A-Za-z][A-Za-z0-9-]*|\d+(\.\d+)*)=/.test(dn), {
    message:
      'expected a distinguished name such as "CN=robot,O=Plant,C=DE" (what openssl x509 -noout -subject -nameopt RFC2253 prints)',
  })
  .transform(canonicalDistinguishedName);

/**
 * The one rule set (issue 13, in the spirit of AAS Part 4): each rule grants rights to subjects
 * on objects. With a security section configured, anything not granted is denied. The engine
 * compiles it once (engine/access/access-policy.ts) and decides every command by it; what each
 * request needs is in docs/security.md "Rules" and docs/adr/0024.
 *
 * Subjects: `authenticated` is anyone not anonymous; `certificateSubject` is the subject DN as
 * RFC 4514 writes it (the certificate's last RDN first, usually `CN=…,O=…`).
 */
const subjectSchema = z.union([
  z.strictObject({ role: z.string().min(1) }),
  z.strictObject({ user: z.string().min(1) }),
  z.strictObject({ certificateSubject: certificateSubjectSchema }),
  z.strictObject({ anonymous: z.literal(true) }),
  z.strictObject({ authenticated: z.literal(true) }),
]);

/**
 * Identifiers and idShortPath prefixes; `*` in an identifier (or semanticId) pattern matches any run
 * of characters, all else is literal. `all` includes the proprietary calls. An idShortPath is a
 * prefix on path segments (`A.B` covers `A.B.C` and `A.B[0]`, not `A.BC`); without one a submodel
 * object covers all its elements.
 */
/** A prefix that names no element would silently grant nothing: refused when the file is loaded. */
const idShortPathPrefix = z
  .string()
  .min(1)
  .superRefine((path, ctx) => {
    try {
      parseIdShortPath(path);
    } catch (error) {
      ctx.addIssue({
        code: "custom",
        message: `${(error as Error).message} (idShortPath prefixes are literal: no patterns)`,
      });
    }
  });

const objectSchema = z.union([
  z.strictObject({ all: z.literal(true) }),
  z.strictObject({ shells: z.string().min(1) }),
  z.strictObject({ submodels: z.string().min(1), idShortPath: idShortPathPrefix.optional() }),
  z.strictObject({ semanticId: z.string().min(1), idShortPath: idShortPathPrefix.optional() }),
  z.strictObject({ conceptDescriptions: z.string().min(1) }),
  z.strictObject({ proprietary: z.enum(["reset", "import", "packages"]) }),
]);

type Right = "READ" | "CREATE" | "UPDATE" | "DELETE" | "EXECUTE";
type RuleObject = z.infer<typeof objectSchema>;

/**
 * The rights any request asks of an object (engine/access/command-access.ts): `/reset` is a DELETE
 * (GET /reset too), `/import` a CREATE, a package anything but EXECUTE; Operations live in
 * submodels, so shells and concept descriptions are never asked for EXECUTE.
 */
function rightsAsked(object: RuleObject): readonly Right[] | "any" {
  if ("proprietary" in object)
    return object.proprietary === "reset"
      ? ["DELETE"]
      : object.proprietary === "import"
        ? ["CREATE"]
        : ["READ", "CREATE", "UPDATE", "DELETE"];
  if ("shells" in object || "conceptDescriptions" in object) return ["READ", "CREATE", "UPDATE", "DELETE"];
  return "any";
}

/**
 * An object of a rule that none of its rights reaches would silently grant nothing (READ on
 * `/reset`, which a GET also resets with DELETE): refused when the file is loaded, as an
 * idShortPath prefix that names no element is. A right that reaches some other object of the
 * rule is fine: one rule may list rights for several objects.
 */
const ruleSchema = z
  .strictObject({
    subjects: z.array(subjectSchema).min(1),
    rights: z.array(z.enum(["READ", "CREATE", "UPDATE", "DELETE", "EXECUTE"])).min(1),
    objects: z.array(objectSchema).min(1),
  })
  .superRefine((rule, ctx) => {
    rule.objects.forEach((object, index) => {
      const asked = rightsAsked(object);
      if (asked === "any" || rule.rights.some((right) => asked.includes(right))) return;
      ctx.addIssue({
        code: "custom",
        path: ["objects", index],
        message: `${JSON.stringify(object)} is granted ${rule.rights.join(", ")}, which no request asks of it: the rule grants nothing there (it needs ${asked.join(" or ")})`,
      });
    });
  });

/** Roles for identities that bring none of their own (OPC UA users and certificates, mTLS clients). */
const roleAssignmentSchema = z.union([
  z.strictObject({ user: z.string().min(1), roles: z.array(z.string().min(1)).min(1) }),
  z.strictObject({ certificateSubject: certificateSubjectSchema, roles: z.array(z.string().min(1)).min(1) }),
]);

export const rulesSchema = z.array(ruleSchema);
export const roleAssignmentsSchema = z.array(roleAssignmentSchema);
export type AccessRule = z.infer<typeof ruleSchema>;
export type RoleAssignment = z.infer<typeof roleAssignmentSchema>;
