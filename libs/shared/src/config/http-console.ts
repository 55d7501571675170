import { z } from "zod";

/**
 * Extension of the HTTP endpoint: `consoleEnabled` serves the built-in web console at `/console/`
 * (and redirects `/` there). On by default: it is static files that use the endpoint's own public
 * API with the caller's credentials, so it opens nothing the API does not (docs/console.md,
 * docs/adr/0033). Off for an endpoint that should answer the AAS API only.
 */
export const consoleEnabledSchema = z.boolean().default(true);
