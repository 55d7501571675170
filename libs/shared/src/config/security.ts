import { z } from "zod";
import { authenticationSchema } from "./security-authentication.ts";
import { roleAssignmentsSchema, rulesSchema } from "./security-rules.ts";

/**
 * The `security` section (issue 13). Absent: every endpoint is open, as the spec's default, and
 * the start-up says so loudly. Present: callers authenticate as configured and every command is
 * checked against the rules in the engine; what no rule grants is denied.
 */
export const securitySchema = z.strictObject({
  authentication: authenticationSchema.default({}),
  roleAssignments: roleAssignmentsSchema.default([]),
  rules: rulesSchema,
});

export type SecurityConfig = z.infer<typeof securitySchema>;
