import { isServed, PROFILE_NAMES, type ProfileName } from "./profiles.ts";

/**
 * The service-specification profile identifiers (AAS API §b) behind each configurable profile name.
 * A full profile also claims its read profile: clients (and the IDTA test engine) match strings,
 * not subsets. The Concept Description profile uses the v3.0.1 enum spelling, which strict v3.0.1
 * clients validate against. FAAAST_IMPORT, FAAAST_RESET and TWINPORT_EVENTS are proprietary: no
 * identifier (a strict v3.0.1 client refuses a ServiceDescription with one outside the enum).
 */
const API = "https://admin-shell.io/aas/API/3/0";
const AAS_SERVICE = `${API}/AssetAdministrationShellServiceSpecification`;
const AAS_REPOSITORY = `${API}/AssetAdministrationShellRepositoryServiceSpecification`;
const SUBMODEL_SERVICE = `${API}/SubmodelServiceSpecification`;
const SUBMODEL_REPOSITORY = `${API}/SubmodelRepositoryServiceSpecification`;

export const PROFILE_IDENTIFIERS: Readonly<Record<ProfileName, readonly string[]>> = {
  AAS_FULL: [`${AAS_SERVICE}/SSP-001`, `${AAS_SERVICE}/SSP-002`],
  AAS_READ: [`${AAS_SERVICE}/SSP-002`],
  AAS_REPOSITORY_FULL: [`${AAS_REPOSITORY}/SSP-001`, `${AAS_REPOSITORY}/SSP-002`],
  AAS_REPOSITORY_READ: [`${AAS_REPOSITORY}/SSP-002`],
  AASX_FILE_SERVER_FULL: [`${API}/AasxFileServerServiceSpecification/SSP-001`],
  CONCEPT_DESCRIPTION_FULL: [`${API}/ConceptDescriptionServiceSpecification/SSP-001`],
  DISCOVERY_FULL: [`${API}/DiscoveryServiceSpecification/SSP-001`],
  FAAAST_IMPORT: [],
  FAAAST_RESET: [],
  SUBMODEL_FULL: [`${SUBMODEL_SERVICE}/SSP-001`, `${SUBMODEL_SERVICE}/SSP-002`],
  SUBMODEL_READ: [`${SUBMODEL_SERVICE}/SSP-002`],
  SUBMODEL_VALUE: [`${SUBMODEL_SERVICE}/SSP-003`],
  SUBMODEL_REPOSITORY_FULL: [`${SUBMODEL_REPOSITORY}/SSP-001`, `${SUBMODEL_REPOSITORY}/SSP-002`],
  SUBMODEL_REPOSITORY_READ: [`${SUBMODEL_REPOSITORY}/SSP-002`],
  TWINPORT_EVENTS: [],
};

/** The order of the v3.0.1 `ServiceDescription.profiles` enum, so the answer is stable. */
const ENUM_ORDER = [
  `${AAS_SERVICE}/SSP-001`,
  `${AAS_SERVICE}/SSP-002`,
  `${SUBMODEL_SERVICE}/SSP-001`,
  `${SUBMODEL_SERVICE}/SSP-002`,
  `${SUBMODEL_SERVICE}/SSP-003`,
  `${API}/AasxFileServerServiceSpecification/SSP-001`,
  `${API}/DiscoveryServiceSpecification/SSP-001`,
  `${AAS_REPOSITORY}/SSP-001`,
  `${AAS_REPOSITORY}/SSP-002`,
  `${SUBMODEL_REPOSITORY}/SSP-001`,
  `${SUBMODEL_REPOSITORY}/SSP-002`,
  `${API}/ConceptDescriptionServiceSpecification/SSP-001`,
];

/**
 * The identifiers an endpoint may claim: those of every configured profile (all, when none is
 * configured) of which it actually serves at least one operation. So `/description` follows what
 * is mounted: a profile without an implementation yet (e.g. the AASX file server) is not claimed.
 */
export function servedProfileIdentifiers(
  operations: readonly { profiles: readonly string[] }[],
  enabled: readonly string[],
): string[] {
  const served = new Set<string>();
  for (const operation of operations) {
    if (!isServed(operation.profiles, enabled)) continue;
    for (const name of operation.profiles) {
      if (!(PROFILE_NAMES as readonly string[]).includes(name) || (enabled.length > 0 && !enabled.includes(name)))
        continue;
      for (const identifier of PROFILE_IDENTIFIERS[name as ProfileName]) served.add(identifier);
    }
  }
  return ENUM_ORDER.filter((identifier) => served.has(identifier));
}
