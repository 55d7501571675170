/**
 * A real OpenID provider for the authentication tests: the `oidc-provider` package on loopback,
 * issuing JWT access tokens through the client-credentials grant with resource indicators (the
 * token's audience). Clients sign with RS256 or ES256; `restart` brings it back on the same port
 * with another key set, as an issuer that rotated its keys.
 */
import { createServer, type Server } from "node:http";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import Provider from "oidc-provider";
import { freePort } from "./servers.ts";

/** The resource (audience) Twinport is configured to accept. */
export const TWINPORT_AUDIENCE = "urn:twinport:test";

/** Private signing keys in JWK form: one RSA (RS256), one P-256 (ES256), ids prefixed by `label`. */
export interface SigningKeys {
  keys: JWK[];
}

export async function signingKeys(label: string): Promise<SigningKeys> {
  const rsa = await generateKeyPair("RS256", { extractable: true });
  const ec = await generateKeyPair("ES256", { extractable: true });
  return {
    keys: [
      { ...(await exportJWK(rsa.privateKey)), kid: `${label}-rs`, alg: "RS256", use: "sig" },
      { ...(await exportJWK(ec.privateKey)), kid: `${label}-es`, alg: "ES256", use: "sig" },
    ],
  };
}

/** A test client: how it signs, how long its tokens live, and the claims its tokens carry. */
export interface TestClient {
  id: string;
  alg: "RS256" | "ES256";
  ttlSeconds?: number;
  claims?: Record<string, unknown>;
}

export interface OpenIdProvider {
  issuer: string;
  port: number;
  /** An access token from the token endpoint (client_credentials), for `resource` (default: Twinport's audience). */
  token(clientId: string, options?: { resource?: string }): Promise<string>;
  /** Stops, and starts again on the same port with `keys`: the issuer rotated its keys. */
  restart(keys: SigningKeys): Promise<void>;
  stop(): Promise<void>;
}

const secretOf = (clientId: string) => `${clientId}-secret`;

export async function startOpenIdProvider(options: {
  clients: TestClient[];
  keys: SigningKeys;
  port?: number;
}): Promise<OpenIdProvider> {
  const port = options.port ?? (await freePort());
  const issuer = `http://127.0.0.1:${port}`;
  const clients = new Map(options.clients.map((client) => [client.id, client]));
  let server: Server | undefined;

  const start = async (keys: SigningKeys) => {
    const provider = new Provider(issuer, {
      clients: options.clients.map((client) => ({
        client_id: client.id,
        client_secret: secretOf(client.id),
        grant_types: ["client_credentials"],
        redirect_uris: [],
        response_types: [],
      })),
      jwks: { keys: keys.keys as never },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => TWINPORT_AUDIENCE,
          useGrantedResource: () => true,
          // Any urn: resource is a resource server of this provider: a token for another one has
          // that audience (the wrong-audience case).
          getResourceServerInfo: (_ctx: unknown, resource: string, client: { clientId: string }) => {
            if (!resource.startsWith("urn:")) throw new Error(`unknown resource ${resource}`);
            const test = clients.get(client.clientId)!;
            return { audience: resource, scope: "aas", accessTokenFormat: "jwt", jwt: { sign: { alg: test.alg } } };
          },
        },
      },
      ttl: {
        ClientCredentials: (_ctx: unknown, _token: unknown, client: { clientId: string }) =>
          clients.get(client.clientId)?.ttlSeconds ?? 600,
      },
      extraTokenClaims: (_ctx: unknown, token: { clientId?: string }) => clients.get(token.clientId ?? "")?.claims,
    } as never);
    const listening = createServer(provider.callback());
    await new Promise<void>((resolve, reject) => {
      listening.once("error", reject);
      listening.listen(port, "127.0.0.1", () => resolve());
    });
    server = listening;
  };

  const stop = async () => {
    const running = server;
    server = undefined;
    if (!running) return;
    running.closeAllConnections();
    await new Promise<void>((resolve) => running.close(() => resolve()));
  };

  await start(options.keys);
  return {
    issuer,
    port,
    async token(clientId, { resource = TWINPORT_AUDIENCE } = {}) {
      const response = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${clientId}:${secretOf(clientId)}`).toString("base64")}`,
        },
        body: new URLSearchParams({ grant_type: "client_credentials", scope: "aas", resource }),
      });
      const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!response.ok || !body.access_token)
        throw new Error(`token endpoint answered ${response.status}: ${body.error} ${body.error_description}`);
      return body.access_token;
    },
    async restart(keys) {
      await stop();
      await start(keys);
    },
    stop,
  };
}
