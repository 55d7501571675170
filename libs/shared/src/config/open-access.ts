import type { EndpointProfile } from "./endpoint-common.ts";

/**
 * What anyone who reaches an endpoint may do when there is no security section, in words for the
 * start-up warning and banner. An endpoint serves only the operations of its `profiles` (empty: all;
 * http-gateway/src/profiles.ts), so one limited to the *_READ profiles lets callers read, not write:
 * telling its operator "change and delete everything" was wrong.
 */
const READ_ONLY_PROFILES: readonly EndpointProfile[] = [
  "AAS_READ",
  "AAS_REPOSITORY_READ",
  "SUBMODEL_READ",
  "SUBMODEL_REPOSITORY_READ",
  "TWINPORT_EVENTS",
];

/** e.g. "read everything", "read, change and delete everything (DELETE /reset included)". */
export function openHttpAccessInWords(profiles: readonly string[]): string {
  const readOnly = (profile: string) => READ_ONLY_PROFILES.includes(profile as EndpointProfile);
  // The Submodel Service's value profile (SSP-003) reads, and invokes operations synchronously.
  if (profiles.length > 0 && profiles.every((profile) => readOnly(profile) || profile === "SUBMODEL_VALUE"))
    return profiles.includes("SUBMODEL_VALUE") ? "read everything and invoke operations" : "read everything";
  return profiles.length === 0 || profiles.includes("FAAAST_RESET")
    ? "read, change and delete everything (DELETE /reset included)"
    : "read, change and delete everything";
}
