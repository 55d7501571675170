import { z } from "zod";

/** Spec §2.2: AAS service profiles an endpoint serves; empty = all of them. */
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
] as const;

export type EndpointProfile = (typeof ENDPOINT_PROFILES)[number];

export const profilesSchema = z.array(z.enum(ENDPOINT_PROFILES)).default([]);

export const portSchema = z.number().int().min(0).max(65535);
