import type { BearerConfig } from "@twinport/shared";
import { createRemoteJWKSet, type JWTVerifyGetKey, type RemoteJWKSet } from "jose";

/** The issuer cannot be asked for its keys right now: not the token's fault (503, not 401). */
export class IssuerUnreachable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "IssuerUnreachable";
  }
}

const FETCH_TIMEOUT_MS = 5_000;

/** The key lookup jwtVerify takes, and whether the key set held now still has a key id. */
export type IssuerKeys = JWTVerifyGetKey & { holds(kid: string): boolean };

/**
 * jose fetches the key set only inside a key lookup (unknown key id, or the set older than its
 * maximum age), so the key ids held are read again after each lookup, not per request (jwks()
 * copies the set). A set past its maximum age holds nothing: the next token goes through a lookup.
 */
function withHolds(current: () => RemoteJWKSet | undefined): IssuerKeys {
  let kids = new Set<string>();
  const get: JWTVerifyGetKey = async (header, token) => {
    try {
      return await current()!(header, token);
    } finally {
      kids = new Set((current()?.jwks()?.keys ?? []).flatMap((key) => (typeof key.kid === "string" ? [key.kid] : [])));
    }
  };
  return Object.assign(get, { holds: (kid: string) => current()?.fresh === true && kids.has(kid) });
}

/**
 * The issuer's signing keys, as jose's remote key set: fetched on first use and cached, fetched
 * again when a token names a key id not in the cache (rotation without restart), at most once per
 * cooldown. With no `jwksUrl`, the key set's address comes from OpenID Connect discovery
 * (`{issuer}/.well-known/openid-configuration`), looked up lazily so that Twinport starts while the
 * issuer is down; a failed lookup is tried again by a later request, not before the cooldown.
 */
export function issuerKeys(config: BearerConfig): IssuerKeys {
  const options = { timeoutDuration: FETCH_TIMEOUT_MS, cooldownDuration: config.keyRefreshCooldownSeconds * 1000 };
  if (config.jwksUrl !== undefined) {
    const remote = createRemoteJWKSet(new URL(config.jwksUrl), options);
    return withHolds(() => remote);
  }

  let keys: RemoteJWKSet | undefined;
  let discovering: Promise<RemoteJWKSet> | undefined;
  let failedAt = -Infinity;
  let lastFailure: Error | undefined;
  const discover = async (): Promise<RemoteJWKSet> => {
    const url = `${config.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
    const response = await fetch(url, {
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      headers: { accept: "application/json" },
    });
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    const metadata = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
    // OpenID Connect Discovery §4.3: the document must name the issuer it was fetched for.
    if (metadata.issuer !== config.issuer)
      throw new Error(`${url} names the issuer ${JSON.stringify(metadata.issuer)}, not ${config.issuer}`);
    if (typeof metadata.jwks_uri !== "string") throw new Error(`${url} has no jwks_uri`);
    return createRemoteJWKSet(new URL(metadata.jwks_uri), options);
  };

  const ensureKeys = async (): Promise<void> => {
    if (keys === undefined) {
      if (Date.now() - failedAt < options.cooldownDuration)
        throw new IssuerUnreachable(`the issuer's discovery document cannot be read: ${lastFailure?.message}`);
      discovering ??= discover().finally(() => (discovering = undefined));
      try {
        keys = await discovering;
      } catch (error) {
        failedAt = Date.now();
        lastFailure = error as Error;
        throw new IssuerUnreachable(`the issuer's discovery document cannot be read: ${(error as Error).message}`, {
          cause: error,
        });
      }
    }
  };
  const keysFound = withHolds(() => keys);
  return Object.assign<JWTVerifyGetKey, Pick<IssuerKeys, "holds">>(
    async (header, token) => {
      await ensureKeys();
      return keysFound(header, token);
    },
    { holds: keysFound.holds },
  );
}
