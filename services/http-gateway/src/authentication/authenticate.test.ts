import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createProcessMetrics, type SecurityConfig } from "@twinport/shared";
import { generateKeyPair, SignJWT } from "jose";
import { freePort } from "../../../../tests/test-support/servers.ts";
import { createHttpApp } from "../create-http-app.ts";
import { httpEndpointSettings } from "../http-endpoint-settings.ts";
import { type ExampleStore, exampleStore } from "../test-support/example-store.ts";

// What an endpoint answers around the token check itself (the checks are in tests/http/authentication-suite.ts,
// against a real OpenID provider): an issuer that cannot be reached, and credentials it does not take.

/** A well-formed RS256 token with a key id, for a key set nobody serves: enough to reach the key lookup. */
async function someToken(issuer: string): Promise<string> {
  const { privateKey } = await generateKeyPair("RS256");
  return new SignJWT({ roles: ["reader"] })
    .setProtectedHeader({ alg: "RS256", kid: "k1" })
    .setIssuer(issuer)
    .setAudience("twinport")
    .setSubject("alice")
    .setExpirationTime("5m")
    .sign(privateKey);
}

function security(
  bearer: Record<string, unknown> | undefined,
  clientCertificates?: { trustedCaFiles: string[] },
): SecurityConfig {
  return {
    authentication: {
      ...(bearer
        ? {
            bearer: {
              audience: "twinport",
              clockSkewSeconds: 30,
              nameClaim: "sub",
              rolesClaims: ["roles"],
              keyRefreshCooldownSeconds: 30,
              ...bearer,
            } as never,
          }
        : {}),
      ...(clientCertificates ? { clientCertificates } : {}),
    },
    roleAssignments: [],
    rules: [],
  };
}

describe("authentication around the token check", () => {
  let example: ExampleStore;
  let closedPort: number;
  before(async () => {
    example = await exampleStore();
    closedPort = await freePort(); // nothing listens there
  });
  after(() => example.close());

  const appWith = (config: SecurityConfig | undefined) =>
    createHttpApp({
      store: example.store,
      settings: httpEndpointSettings({ sslEnabled: false }),
      ...(config ? { security: config } : {}),
    });

  it("an issuer whose discovery document cannot be read: 503 with the Result body (the token may be fine), not 401", async () => {
    const issuer = `http://127.0.0.1:${closedPort}/realms/plant`;
    const app = appWith(security({ issuer }));
    const token = await someToken(issuer);
    for (let i = 0; i < 2; i++) {
      // The second request comes within the cooldown: answered at once, without asking again.
      const response = await app.request("/api/v3.0/shells", { headers: { authorization: `Bearer ${token}` } });
      assert.equal(response.status, 503);
      assert.equal(response.headers.get("www-authenticate"), null);
      const body = (await response.json()) as { messages: { code: string; text: string }[] };
      assert.equal(body.messages[0]!.code, "503");
      assert.match(body.messages[0]!.text, /token issuer cannot be reached/);
    }
  });

  it("a configured jwksUrl that cannot be fetched: 503 too", async () => {
    const issuer = "https://login.example.com/realms/plant";
    const app = appWith(security({ issuer, jwksUrl: `http://127.0.0.1:${closedPort}/jwks` }));
    const response = await app.request("/api/v3.0/shells", {
      headers: { authorization: `Bearer ${await someToken(issuer)}` },
    });
    assert.equal(response.status, 503);
  });

  it("a bearer token where no bearer authentication is configured: 401 invalid_token", async () => {
    const app = appWith(security(undefined));
    const response = await app.request("/api/v3.0/shells", { headers: { authorization: "Bearer abc.def.ghi" } });
    assert.equal(response.status, 401);
    assert.match(
      response.headers.get("www-authenticate")!,
      /^Bearer realm="twinport", error="invalid_token", error_description="this endpoint accepts no bearer tokens/,
    );
  });

  it("a refusal by authentication is counted under the route the request matched, not the middleware's /*", async () => {
    const metrics = createProcessMetrics("embedded");
    const app = createHttpApp({
      store: example.store,
      settings: httpEndpointSettings({ sslEnabled: false }),
      security: security(undefined),
      metrics,
    });
    assert.equal(
      (await app.request("/api/v3.0/shells", { headers: { authorization: "Bearer abc.def.ghi" } })).status,
      401,
    );
    assert.equal((await app.request("/nope")).status, 404);
    const lines = (await metrics.render()).body
      .split("\n")
      .filter((line) => line.startsWith("twinport_http_requests_total"));
    assert.ok(
      lines.some((line) => line.includes('route="/api/v3.0/shells"') && line.includes('status="401"')),
      lines.join("\n"),
    );
    // An unknown path keeps the catch-all's label.
    assert.ok(
      lines.some((line) => line.includes('route="/*"') && line.includes('status="404"')),
      lines.join("\n"),
    );
  });

  it("without a security section no credential is looked at: as before, an Authorization header changes nothing", async () => {
    const response = await appWith(undefined).request("/api/v3.0/shells", {
      headers: { authorization: "Basic Zm9vOmJhcg==" },
    });
    assert.equal(response.status, 200);
  });
});
