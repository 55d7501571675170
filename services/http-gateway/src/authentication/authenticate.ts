import { TLSSocket } from "node:tls";
import { ANONYMOUS, certificatePrincipal, type Principal, type SecurityConfig } from "@twinport/shared";
import type { MiddlewareHandler } from "hono";
import { errorResponse } from "../http/error-response.ts";
import { type GatewayContext, incomingMessageOf } from "../http/gateway-env.ts";
import { variesByPrincipal } from "../http/principal-vary.ts";
import { bearerTokenVerifier, InvalidToken } from "./bearer-token-verifier.ts";
import { clientCertificateOf } from "./client-certificate.ts";
import { IssuerUnreachable } from "./issuer-keys.ts";
import { unauthenticatedResponse } from "./unauthenticated-response.ts";

/** The request's principal, or why it has none (the answer to send instead). */
export type Authenticator = (c: GatewayContext) => Promise<Principal> | Principal;

/** A credential that cannot be used: 401 (or 400 for a malformed Authorization header). */
class Refused extends Error {
  constructor(
    message: string,
    readonly error?: "invalid_token" | "invalid_request",
  ) {
    super(message);
  }
}

/**
 * The token of `Bearer <token>` (scheme in any case, RFC 6750 §2.1), or undefined. No regular
 * expression over the whole token on every request: a malformed token fails jose's parsing.
 */
function bearerToken(authorization: string): string | undefined {
  if (authorization.length <= 7 || authorization.slice(0, 7).toLowerCase() !== "bearer ") return undefined;
  const token = authorization.slice(7).trim();
  return token === "" || token.includes(" ") ? undefined : token;
}

/**
 * How a request proves who it is, with a security section configured (issue 13):
 * 1. a client certificate the configured CAs did not issue is refused (401), whatever else comes;
 * 2. an Authorization header must hold a valid bearer token (else 401 invalid_token), and then
 *    the token names the principal, even over a connection with a client certificate;
 * 3. else a verified client certificate names it (kind "certificate", its subject DN);
 * 4. else the request is anonymous, and the rules decide what it may do.
 */
export function createAuthenticator(security: SecurityConfig): Authenticator {
  const { bearer, clientCertificates } = security.authentication;
  const verifyBearer = bearer ? bearerTokenVerifier(bearer, security.roleAssignments) : undefined;
  return (c) => {
    const socket = clientCertificates ? incomingMessageOf(c)?.socket : undefined;
    const certificate = socket instanceof TLSSocket ? clientCertificateOf(socket) : undefined;
    if (certificate && !certificate.verified) throw new Refused(certificate.reason);
    const authorization = c.req.header("authorization");
    if (authorization !== undefined) {
      const token = bearerToken(authorization);
      if (token === undefined)
        throw new Refused('the Authorization header must be "Bearer" and a token', "invalid_request");
      if (!verifyBearer)
        throw new Refused(
          "this endpoint accepts no bearer tokens (security.authentication.bearer is not configured)",
          "invalid_token",
        );
      return verifyBearer(token);
    }
    if (certificate) return certificatePrincipal(certificate.subject, security.roleAssignments);
    return ANONYMOUS;
  };
}

/** Puts the request's principal on the context (command-sender.ts stamps it on every command). */
export function authentication(
  authenticate: Authenticator,
  options: { clientCertificates: boolean; log?: (line: string) => void },
): MiddlewareHandler {
  const { clientCertificates, log } = options;
  return async (c, next) => {
    let principal: Principal;
    try {
      principal = await authenticate(c);
    } catch (error) {
      if (error instanceof InvalidToken)
        return variesByPrincipal(
          unauthenticatedResponse(c, { error: "invalid_token", description: error.message }),
          clientCertificates,
        );
      if (error instanceof Refused)
        return variesByPrincipal(
          unauthenticatedResponse(c, {
            ...(error.error ? { error: error.error } : {}),
            description: error.message,
          }),
          clientCertificates,
        );
      // The issuer is down or unreadable: the client's token may be fine, so it is not told it is not.
      if (error instanceof IssuerUnreachable) {
        log?.(error.message);
        return variesByPrincipal(
          errorResponse(
            c,
            { code: "unavailable", message: "The token cannot be checked now: the token issuer cannot be reached" },
            { includeErrorDetails: false },
          ),
          clientCertificates,
        );
      }
      throw error;
    }
    c.set("principal", principal);
    await next();
  };
}
