import { ANONYMOUS, type Principal } from "@twinport/shared";
import type { MiddlewareHandler } from "hono";
import type { GatewayContext } from "./gateway-env.ts";
import { type PrincipalSources, varyByPrincipal } from "./principal-vary.ts";

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
 * and client-certificate authentication runs before this and sets its own principal.) Its answer
 * depends on that principal, and says so (principal-vary.ts); one middleware for both, as every
 * layer costs a dispatch per request (ADR 0026).
 */
export function anonymousUnlessAuthenticated(sources: PrincipalSources): MiddlewareHandler {
  const vary = varyByPrincipal(sources);
  return async (c, next) => {
    if (c.get("principal") === undefined) c.set("principal", ANONYMOUS);
    const after = vary(c);
    await next();
    after?.(c);
  };
}

export function principalOf(c: GatewayContext): Principal | undefined {
  return c.get("principal");
}

/** The challenge of a 401 for an anonymous caller the rules refused (RFC 6750 §3). */
export const BEARER_CHALLENGE = 'Bearer realm="twinport"';
