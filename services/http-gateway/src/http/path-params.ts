import { decodeBase64Url, isAasError } from "@twinport/shared";
import { badRequest } from "./api-error.ts";
import type { GatewayContext } from "./gateway-env.ts";

/** An identifier path parameter ({aasIdentifier}, {submodelIdentifier}): base64url of the id. */
export function identifierParam(c: GatewayContext, name: string): string {
  const encoded = c.req.param(name) ?? "";
  try {
    return decodeBase64Url(encoded);
  } catch (error) {
    if (isAasError(error)) throw badRequest(`Path parameter {${name}}: ${error.message}`);
    throw error;
  }
}

/**
 * {idShortPath}: percent-decoded by the router, parsed by the engine. A segment starting with "$"
 * is a content suffix (`$metadata`, `$path`, ...) that this endpoint does not serve at that place.
 */
export function idShortPathParam(c: GatewayContext): string {
  const path = c.req.param("idShortPath") ?? "";
  if (path.startsWith("$")) throw badRequest(`"${path}" is not supported at this place of the path`);
  return path;
}
