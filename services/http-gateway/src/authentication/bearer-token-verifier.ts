import { errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";
import { userPrincipal, type BearerConfig, type Principal, type RoleAssignment } from "@twinport/shared";
import { IssuerUnreachable, issuerKeys } from "./issuer-keys.ts";

/** A token was presented and is not accepted: 401 with error="invalid_token" (RFC 6750 §3.1). */
export class InvalidToken extends Error {
  constructor(description: string) {
    super(description);
    this.name = "InvalidToken";
  }
}

/**
 * Only asymmetric algorithms: a key set holds public keys, and a token "signed" with HS256 using
 * the public key as the secret, or with alg none, must never verify.
 */
const ASYMMETRIC_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];

export type BearerTokenVerifier = (token: string) => Promise<Principal>;

/**
 * Checks an OAuth 2.0 / OpenID Connect access token (JWT) with jose: signature by one of the
 * issuer's keys, `iss`, `aud` (one of the configured audiences), `exp` (required) and `nbf` with the
 * configured clock skew. The principal is a user named by `nameClaim`, with the roles of
 * `rolesClaims` and those `roleAssignments` give that user name.
 */
export function bearerTokenVerifier(config: BearerConfig, assignments: readonly RoleAssignment[], keys: JWTVerifyGetKey = issuerKeys(config)): BearerTokenVerifier {
  const options = {
    issuer: config.issuer,
    audience: config.audience,
    clockTolerance: config.clockSkewSeconds,
    algorithms: ASYMMETRIC_ALGORITHMS,
    requiredClaims: ["exp"],
  };
  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, options));
    } catch (error) {
      throw refusal(error);
    }
    const name = claimAt(payload, config.nameClaim);
    if (typeof name !== "string" || name === "") throw new InvalidToken(`the token has no "${config.nameClaim}" claim naming the user`);
    return userPrincipal(name, config.rolesClaims.flatMap((claim) => rolesIn(claimAt(payload, claim))), assignments);
  };
}

/** A claim by dot path (realm_access.roles); own properties only. */
function claimAt(payload: JWTPayload, path: string): unknown {
  let value: unknown = payload;
  for (const key of path.split(".")) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function rolesIn(value: unknown): string[] {
  if (typeof value === "string") return value === "" ? [] : [value];
  if (Array.isArray(value)) return value.filter((role): role is string => typeof role === "string" && role !== "");
  return [];
}

/** What the client is told; the reason is specific enough to fix a client, nothing more. */
function refusal(error: unknown): Error {
  if (error instanceof IssuerUnreachable) return error;
  if (error instanceof errors.JWTExpired) return new InvalidToken("the token has expired");
  if (error instanceof errors.JWTClaimValidationFailed) return new InvalidToken(`the token's "${error.claim}" claim is not accepted (${error.reason})`);
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return new InvalidToken("the token's signature algorithm is not accepted");
  if (error instanceof errors.JWSSignatureVerificationFailed) return new InvalidToken("the token's signature is not valid");
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) return new InvalidToken("no key of the issuer matches the token");
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return new InvalidToken("the token is malformed");
  // The key set could not be fetched or read (timeout, network, not a key set): the issuer's side.
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || !(error instanceof errors.JOSEError)) {
    return new IssuerUnreachable(`the issuer's keys cannot be fetched: ${(error as Error).message}`, { cause: error });
  }
  return new InvalidToken("the token is not accepted");
}
