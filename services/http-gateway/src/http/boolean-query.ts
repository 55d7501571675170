import { echoed } from "@twinport/shared";
import { badRequest } from "./api-error.ts";
import type { GatewayContext } from "./gateway-env.ts";
import { singleQuery } from "./query.ts";

/**
 * A boolean query parameter (`includeConceptDescriptions`, the legacy `async` of /invoke): "true"
 * or "false" in any letter case. Clients written in languages whose booleans print as "True"
 * (Python, .NET) send that, and other servers accept it. Anything else, "1" and "yes" included, is
 * a 400: the IDTA test engine sends invalid booleans and expects a 4xx, and a lenient reading
 * would guess the client's meaning.
 */
export function booleanQuery(c: GatewayContext, name: string, defaultValue: boolean): boolean {
  const value = singleQuery(c, name);
  if (value === undefined) return defaultValue;
  const lower = value.toLowerCase();
  if (lower === "true") return true;
  if (lower === "false") return false;
  throw badRequest(`Query parameter "${name}" must be true or false, got "${echoed(value)}"`);
}
