import { z } from "zod";

/**
 * How HTTP callers prove who they are (issue 13): OAuth 2.0 / OpenID Connect bearer tokens (JWT)
 * checked against the issuer's keys, and HTTPS client certificates. OPC UA keeps its own
 * `supportedAuthentications` per endpoint (spec §5); its identities map to the same subjects.
 */
const bearerSchema = z.strictObject({
  /** The token issuer (`iss`); its keys are found by OpenID Connect discovery unless jwksUrl is set. */
  issuer: z.url(),
  /** The JWKS URL, when the issuer offers no discovery document (or to skip it). */
  jwksUrl: z.url().optional(),
  /** Accepted `aud` values: a token must name at least one. */
  audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)], {
    error: "expected a string or a non-empty list of strings",
  }),
  /** Tolerated clock difference for exp/nbf/iat, in seconds. */
  clockSkewSeconds: z.number().int().min(0).max(600).default(30),
  /** The claim that names the user. */
  nameClaim: z.string().min(1).default("sub"),
  /** Claims (dot paths such as realm_access.roles) whose strings are the caller's roles or groups. */
  rolesClaims: z.array(z.string().min(1)).default(["roles", "groups"]),
  /**
   * A token signed with a key not in the cached key set makes Twinport fetch the set again (key
   * rotation without restart), at most once per this many seconds, so made-up key ids cannot make it
   * hammer the issuer. Known keys are refetched every 10 minutes.
   */
  keyRefreshCooldownSeconds: z.number().int().min(0).max(3600).default(30),
});

const clientCertificateSchema = z.strictObject({
  /**
   * PEM files of the CAs whose client certificates are accepted (mutual TLS; HTTPS endpoints only).
   * A client may still connect without a certificate (and use a token, or be anonymous); one that
   * presents a certificate these CAs did not issue is answered 401.
   */
  trustedCaFiles: z.array(z.string().min(1)).min(1),
});

export const authenticationSchema = z.strictObject({
  bearer: bearerSchema.optional(),
  clientCertificates: clientCertificateSchema.optional(),
});

export type AuthenticationConfig = z.infer<typeof authenticationSchema>;
export type BearerConfig = z.infer<typeof bearerSchema>;
