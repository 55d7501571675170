/**
 * AAS service profiles (spec §2.2) and which of them contain the operations this endpoint serves.
 * An endpoint configured with a non-empty `profiles` list serves only operations of those profiles.
 * The sets follow the v3.0.1 service specifications: the superpath below a shell belongs to the AAS
 * Repository (and, like `/aas/submodels/…`, to the AAS API); `/submodels/{id}/…` is the Submodel API
 * mounted in the Submodel Repository.
 */
import { ENDPOINT_PROFILES, type EndpointProfile } from "@twinport/shared";
// The profile names are part of the shared vocabulary (the configuration validates them too).
export const PROFILE_NAMES = ENDPOINT_PROFILES;
export type ProfileName = EndpointProfile;

/** Which profiles contain an operation: the read set for GETs, the write set otherwise. */
export interface ProfileSets {
  read: readonly ProfileName[];
  write: readonly ProfileName[];
}

export const SHELL_REPOSITORY: ProfileSets = {
  read: ["AAS_REPOSITORY_FULL", "AAS_REPOSITORY_READ"],
  write: ["AAS_REPOSITORY_FULL"],
};
/** GET/PUT /shells/{aasIdentifier} is also the AAS API's Get/PutAssetAdministrationShell. */
export const SHELL: ProfileSets = {
  read: ["AAS_REPOSITORY_FULL", "AAS_REPOSITORY_READ", "AAS_FULL", "AAS_READ"],
  write: ["AAS_REPOSITORY_FULL", "AAS_FULL"],
};
export const SUBMODEL_REPOSITORY: ProfileSets = {
  read: ["SUBMODEL_REPOSITORY_FULL", "SUBMODEL_REPOSITORY_READ"],
  write: ["SUBMODEL_REPOSITORY_FULL"],
};
/** The Submodel API mounted at /submodels/{submodelIdentifier}. */
export const SUBMODEL_API_IN_REPOSITORY: ProfileSets = {
  read: ["SUBMODEL_REPOSITORY_FULL", "SUBMODEL_REPOSITORY_READ", "SUBMODEL_FULL", "SUBMODEL_READ"],
  write: ["SUBMODEL_REPOSITORY_FULL", "SUBMODEL_FULL"],
};
export const CONCEPT_DESCRIPTION_REPOSITORY: ProfileSets = {
  read: ["CONCEPT_DESCRIPTION_FULL"],
  write: ["CONCEPT_DESCRIPTION_FULL"],
};
export const DISCOVERY: ProfileSets = { read: ["DISCOVERY_FULL"], write: ["DISCOVERY_FULL"] };
/** The Submodel API mounted at /shells/{aasIdentifier}/submodels/{submodelIdentifier}. */
export const SUBMODEL_API_BELOW_SHELL: ProfileSets = {
  read: ["AAS_REPOSITORY_FULL", "AAS_REPOSITORY_READ", "AAS_FULL", "AAS_READ"],
  write: ["AAS_REPOSITORY_FULL", "AAS_FULL"],
};

/** GET /serialization: in every repository and service profile whose file lists it (AAS API §b). */
export const SERIALIZATION: readonly ProfileName[] = [
  "AAS_REPOSITORY_FULL",
  "AAS_REPOSITORY_READ",
  "SUBMODEL_REPOSITORY_FULL",
  "SUBMODEL_REPOSITORY_READ",
  "AAS_FULL",
  "AAS_READ",
  "SUBMODEL_FULL",
  "SUBMODEL_READ",
  "CONCEPT_DESCRIPTION_FULL",
];
export const AASX_FILE_SERVER: ProfileSets = { read: ["AASX_FILE_SERVER_FULL"], write: ["AASX_FILE_SERVER_FULL"] };
/** FA³ST's proprietary calls (spec §4.2). */
export const FAAAST_RESET: readonly ProfileName[] = ["FAAAST_RESET"];
export const FAAAST_IMPORT: readonly ProfileName[] = ["FAAAST_IMPORT"];
/** Ours: GET /events, the change event stream (docs/events.md). */
export const TWINPORT_EVENTS: readonly ProfileName[] = ["TWINPORT_EVENTS"];

export function isServed(operationProfiles: readonly string[], enabled: readonly string[]): boolean {
  return enabled.length === 0 || operationProfiles.some((profile) => enabled.includes(profile));
}
