import { type BearerConfig, type Principal, type RoleAssignment, userPrincipal } from "@twinport/shared";
import { errors, type JWTPayload, jwtVerify } from "jose";
import { type IssuerKeys, IssuerUnreachable, issuerKeys } from "./issuer-keys.ts";

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
const ASYMMETRIC_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

export type BearerTokenVerifier = (token: string) => Promise<Principal> | Principal;

/** A token already verified, and until when that verification holds. */
interface Verified {
  principal: Principal;
  kid: string;
  /** Milliseconds since the epoch, clock skew applied. */
  notBefore: number;
  expires: number;
}

/** Tokens kept verified: a client sends the same token with every request until it expires. */
const MAX_VERIFIED_TOKENS = 4096;

/**
 * Checks an OAuth 2.0 / OpenID Connect access token (JWT) with jose: signature by one of the
 * issuer's keys, `iss`, `aud` (one of the configured audiences), `exp` (required), `nbf` and `iat`
 * (not in the future) with the configured clock skew. The principal is a user named by `nameClaim`, with the roles of
 * `rolesClaims` and those `roleAssignments` give that user name.
 *
 * A verified token is remembered by its exact text: the same bytes verify the same way again, so
 * only what depends on time or on the issuer is rechecked (exp/nbf with the skew, and that its key
 * is still in the key set held now: a token of a withdrawn key is refused once the new set is
 * fetched). That keeps the signature check (100–200 µs of CPU) off every request but the first
 * (bench/token-validation.ts).
 */
export function bearerTokenVerifier(
  config: BearerConfig,
  assignments: readonly RoleAssignment[],
  keys: IssuerKeys = issuerKeys(config),
): BearerTokenVerifier {
  const options = {
    issuer: config.issuer,
    audience: config.audience,
    clockTolerance: config.clockSkewSeconds,
    algorithms: ASYMMETRIC_ALGORITHMS,
    requiredClaims: ["exp"],
  };
  const skewMs = config.clockSkewSeconds * 1000;
  const verified = new Map<string, Verified>();

  const verify = async (token: string): Promise<Principal> => {
    let payload: JWTPayload;
    let kid: string | undefined;
    try {
      ({
        payload,
        protectedHeader: { kid },
      } = await jwtVerify(token, keys, options));
    } catch (error) {
      throw refusal(error);
    }
    // jose checks iat only against a maximum token age, which we do not set; a token issued in the
    // future (beyond the skew) comes from an issuer whose clock is wrong or from a forger.
    if (typeof payload.iat === "number" && payload.iat * 1000 > Date.now() + skewMs)
      throw new InvalidToken("the token's iat claim is in the future");
    const name = claimAt(payload, config.nameClaim);
    if (typeof name !== "string" || name === "")
      throw new InvalidToken(`the token has no ${config.nameClaim} claim naming the user`);
    const principal = userPrincipal(
      name,
      config.rolesClaims.flatMap((claim) => rolesIn(claimAt(payload, claim))),
      assignments,
    );
    if (kid !== undefined) {
      if (verified.size >= MAX_VERIFIED_TOKENS) verified.delete(verified.keys().next().value!);
      verified.set(token, {
        principal,
        kid,
        notBefore: (payload.nbf ?? 0) * 1000 - skewMs,
        expires: payload.exp! * 1000 + skewMs,
      });
    }
    return principal;
  };

  return (token) => {
    const known = verified.get(token);
    if (known !== undefined) {
      const now = Date.now();
      if (now >= known.notBefore && now < known.expires && keys.holds(known.kid)) return known.principal;
      // Expired, not yet valid or its key withdrawn: the full check says which, in its words.
      verified.delete(token);
    }
    return verify(token);
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
  if (error instanceof errors.JWTClaimValidationFailed)
    return new InvalidToken(`the token's ${error.claim} claim is not accepted`);
  // jose refuses a "crit" header naming an extension it does not know with the same error class as
  // an unsupported algorithm; the algorithm was fine then (RFC 7515 §4.1.11).
  if (error instanceof errors.JOSENotSupported && /^Extension Header Parameter /.test(error.message))
    return new InvalidToken("the token names a critical header extension (crit) this server does not support");
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported)
    return new InvalidToken("the token's signature algorithm is not accepted");
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return new InvalidToken("the token's signature is not valid");
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
    return new InvalidToken("no key of the issuer matches the token");
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid)
    return new InvalidToken("the token is malformed");
  // The key set could not be fetched or read (timeout, network, not a key set): the issuer's side.
  if (
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    !(error instanceof errors.JOSEError)
  ) {
    return new IssuerUnreachable(`the issuer's keys cannot be fetched: ${(error as Error).message}`, { cause: error });
  }
  return new InvalidToken("the token is not accepted");
}
