import { badRequest } from "./api-error.ts";
import type { GatewayContext } from "./gateway-env.ts";
import { singleQuery } from "./query.ts";

/**
 * A boolean query parameter (`includeConceptDescriptions`, the legacy `async` of /invoke): exactly
 * "true" or "false". Anything else, "1", "yes" or "TRUE" included, is a 400: the IDTA test engine
 * sends invalid booleans and expects a 4xx, and a lenient reading would guess the client's meaning.
 */
export function booleanQuery(c: GatewayContext, name: string, defaultValue: boolean): boolean {
  const value = singleQuery(c, name);
  if (value === undefined) return defaultValue;
  if (value === "true") return true;
  if (value === "false") return false;
  throw badRequest(`Query parameter "${name}" must be true or false, got "${value}"`);
}
