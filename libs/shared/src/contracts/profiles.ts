/**
 * AAS service profiles an endpoint can serve (spec §2.2), shared by the configuration (which
 * validates `profiles`) and the gateways (which serve only the operations of configured profiles).
 */
export const ENDPOINT_PROFILES = [
  "AAS_FULL",
  "AAS_READ",
  "AAS_REPOSITORY_FULL",
  "AAS_REPOSITORY_READ",
  "AASX_FILE_SERVER_FULL",
  "CONCEPT_DESCRIPTION_FULL",
  "DISCOVERY_FULL",
  "FAAAST_IMPORT",
  "FAAAST_RESET",
  "SUBMODEL_FULL",
  "SUBMODEL_READ",
  "SUBMODEL_VALUE",
  "SUBMODEL_REPOSITORY_FULL",
  "SUBMODEL_REPOSITORY_READ",
  // Ours (issue 15): GET /events, the Server-Sent Events stream of committed changes.
  "TWINPORT_EVENTS",
] as const;

export type EndpointProfile = (typeof ENDPOINT_PROFILES)[number];
