import { ANONYMOUS, type Principal } from "@twinport/shared";
import type { MiddlewareHandler } from "hono";
import type { GatewayContext } from "./gateway-env.ts";

// Who the request is from, once security is configured: put on every command it sends, and read
// by the error translation (a refused anonymous caller is told to authenticate: 401).
declare module "hono" {
  interface ContextVariableMap {
    principal: Principal;
  }
}

/**
 * With a security section, a request nothing authenticated is anonymous: it must never travel
 * without a principal, which the engine would take for the model-store's own work. (The bearer
 * and client-certificate authentication runs before this and sets its own principal.)
 */
export function anonymousUnlessAuthenticated(): MiddlewareHandler {
  return async (c, next) => {
    if (c.get("principal") === undefined) c.set("principal", ANONYMOUS);
    await next();
  };
}

export function principalOf(c: GatewayContext): Principal | undefined {
  return c.get("principal");
}

/** The challenge of a 401 for an anonymous caller the rules refused (RFC 6750 §3). */
export const BEARER_CHALLENGE = 'Bearer realm="twinport"';
