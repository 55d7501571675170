import { z } from "zod";

import { ENDPOINT_PROFILES, type EndpointProfile } from "../contracts/index.ts";

/** Spec §2.2: AAS service profiles an endpoint serves; empty = all of them. */
export { ENDPOINT_PROFILES, type EndpointProfile };

export const profilesSchema = z.array(z.enum(ENDPOINT_PROFILES)).default([]);

export const portSchema = z.number().int().min(0).max(65535);
