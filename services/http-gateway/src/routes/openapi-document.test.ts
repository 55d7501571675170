import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import type { SecurityConfig } from "@twinport/shared";
import type { Hono } from "hono";
import { parse } from "yaml";
import { createHttpApp } from "../create-http-app.ts";
import { httpEndpointSettings } from "../http-endpoint-settings.ts";
import { call } from "../test-support/call.ts";
import { type ExampleStore, exampleStore } from "../test-support/example-store.ts";

/** The description's own routes: documents and pages, not operations of the API. */
const DOCUMENTATION = /^\/api\/v3\.0\/(openapi\.(json|yaml)|swagger-ui(\/\*)?)$/;
/** What an endpoint answers for a path or method it does not serve (api-routes.ts, create-http-app.ts). */
const NOT_SERVED = /not served by this endpoint|is not a path of the AAS API served here|is not allowed on this path/;

const PROFILE_SETS: readonly string[][] = [
  [],
  ["AAS_REPOSITORY_READ"],
  ["SUBMODEL_REPOSITORY_FULL", "DISCOVERY_FULL"],
  ["CONCEPT_DESCRIPTION_FULL", "AASX_FILE_SERVER_FULL", "FAAAST_IMPORT"],
];

type Document = { paths: Record<string, Record<string, unknown>>; components: Record<string, Record<string, unknown>> };

async function documentOf(app: Hono): Promise<Document> {
  const answer = await call(app, "GET", "/api/v3.0/openapi.json");
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.headers.get("content-type"), "application/json");
  return answer.json;
}

function documentedOperations(document: Document): Set<string> {
  const operations = new Set<string>();
  for (const [path, item] of Object.entries(document.paths))
    for (const method of Object.keys(item))
      if (method !== "parameters") operations.add(`${method.toUpperCase()} ${path}`);
  return operations;
}

/** The operations Hono registered, in the document's spelling (without the prefix, `{name}` parameters). */
function registeredOperations(app: Hono): Set<string> {
  const operations = new Set<string>();
  for (const route of app.routes) {
    // ALL: the 405/404/400 catch-alls; HEAD is answered by every GET. Outside /api/v3.0 (the web
    // console and the redirect of `/` to it) is no part of the API the document describes.
    if (route.method === "ALL" || DOCUMENTATION.test(route.path) || !route.path.startsWith("/api/v3.0")) continue;
    operations.add(`${route.method} ${route.path.replace(/^\/api\/v3\.0/, "").replace(/:(\w+)/g, "{$1}")}`);
  }
  return operations;
}

/** A concrete URL for a template: any value reaches the handler, which then answers for it (often 404 not-found). */
function concrete(path: string): string {
  return `/api/v3.0${path.replace(/\{idShortPath\}/g, "x").replace(/\{[^}]+\}/g, "eA")}`;
}

describe("the OpenAPI document matches the routes the endpoint serves (both directions, per profile set)", () => {
  let example: ExampleStore;
  before(async () => {
    example = await exampleStore();
  });
  after(() => example.close());

  for (const profiles of PROFILE_SETS) {
    const label = profiles.length === 0 ? "all profiles" : profiles.join(", ");

    it(`${label}: every registered route is documented, and every documented operation is served`, async () => {
      const app = createHttpApp({ store: example.store, settings: httpEndpointSettings({ profiles }) });
      const document = await documentOf(app);
      const documented = documentedOperations(document);
      const registered = registeredOperations(app);
      assert.ok(registered.size > 0);
      assert.deepEqual(
        [...registered].filter((operation) => !documented.has(operation)),
        [],
        "served but not documented",
      );
      assert.deepEqual(
        [...documented].filter((operation) => !registered.has(operation)),
        [],
        "documented but not registered",
      );
      // And asked for real: each documented operation reaches a handler (whatever it then answers).
      for (const operation of documented) {
        const [method, path] = operation.split(" ") as [string, string];
        const response = await app.request(concrete(path), { method });
        // Only a refusal's body is read: a success may be a stream that never ends (an event stream).
        const text = response.status >= 400 ? await response.text() : "";
        if (response.status < 400) await response.body?.cancel();
        assert.ok(
          response.status !== 405 && !NOT_SERVED.test(text),
          `${operation} is documented but answers ${response.status}: ${text}`,
        );
      }
    });

    it(`${label}: the document is valid OpenAPI 3.0 and every reference resolves`, async () => {
      const app = createHttpApp({ store: example.store, settings: httpEndpointSettings({ profiles }) });
      const document = await documentOf(app);
      await SwaggerParser.validate(structuredClone(document) as never);
      assert.equal((document as unknown as { openapi: string }).openapi, "3.0.3");
    });
  }

  it("a restricted endpoint describes only its profiles' operations", async () => {
    const app = createHttpApp({
      store: example.store,
      settings: httpEndpointSettings({ profiles: ["AAS_REPOSITORY_READ"] }),
    });
    const documented = documentedOperations(await documentOf(app));
    assert.ok(documented.has("GET /shells"));
    assert.ok(documented.has("GET /shells/{aasIdentifier}/submodels/{submodelIdentifier}/submodel-elements"));
    for (const absent of [
      "POST /shells",
      "DELETE /shells/{aasIdentifier}",
      "GET /submodels",
      "GET /concept-descriptions",
      "POST /import",
      "GET /reset",
    ])
      assert.ok(!documented.has(absent), `${absent} is not served under AAS_REPOSITORY_READ`);
    assert.equal((await call(app, "POST", "/api/v3.0/shells", { body: "{}" })).status, 405);
  });

  it("official operations keep the v3.0.1 text; proprietary calls and aliases are described too", async () => {
    const document = await documentOf(createHttpApp({ store: example.store, settings: httpEndpointSettings() }));
    const getShells = document.paths["/shells"]?.get as { operationId: string; parameters: { $ref: string }[] };
    assert.equal(getShells.operationId, "GetAllAssetAdministrationShells");
    assert.ok(getShells.parameters.some((parameter) => parameter.$ref === "#/components/parameters/AssetIds"));
    assert.ok(document.components.schemas?.AssetAdministrationShell, "Part 1 schemas are merged in");
    assert.ok(document.components.responses?.["bad-request"], "Part 2 responses are merged in");
    const references = JSON.stringify(document).match(/"\$ref":"[^"]*"/g) ?? [];
    assert.ok(references.length > 100);
    assert.deepEqual(
      references.filter((reference) => !reference.startsWith('"$ref":"#/')),
      [],
      "every reference is local",
    );
    assert.match(String((document.paths["/import"]?.post as { summary: string }).summary), /FA³ST/);
    assert.match(
      String(
        (
          document.paths["/shells/{aasIdentifier}/aas/submodels/{submodelIdentifier}/submodel"]?.get as {
            description: string;
          }
        ).description,
      ),
      /GET \/shells\/\{aasIdentifier\}\/submodels\/\{submodelIdentifier\}/,
    );
    assert.deepEqual((document as unknown as { servers: unknown }).servers, [
      { url: "/api/v3.0", description: "This endpoint" },
    ]);
  });

  it("serves the same document as YAML", async () => {
    const app = createHttpApp({ store: example.store, settings: httpEndpointSettings() });
    const answer = await call(app, "GET", "/api/v3.0/openapi.yaml");
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get("content-type") ?? "", /^application\/yaml/);
    assert.deepEqual(parse(answer.text), await documentOf(app));
  });

  it("serves Swagger UI from swagger-ui-dist, pre-configured with the document, and nothing outside its folder", async () => {
    const app = createHttpApp({ store: example.store, settings: httpEndpointSettings() });
    const bare = await app.request("/api/v3.0/swagger-ui");
    assert.equal(bare.status, 301);
    assert.equal(bare.headers.get("location"), "/api/v3.0/swagger-ui/");
    const page = await call(app, "GET", "/api/v3.0/swagger-ui/");
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(page.text, /swagger-ui-bundle\.js/);
    const initializer = await call(app, "GET", "/api/v3.0/swagger-ui/swagger-initializer.js");
    assert.match(initializer.text, /"url":"\.\.\/openapi\.json"/);
    assert.doesNotMatch(initializer.text, /petstore/);
    assert.equal((await app.request("/api/v3.0/swagger-ui/swagger-ui-bundle.js")).status, 200);
    for (const path of [
      "/api/v3.0/swagger-ui/package.json.map",
      "/api/v3.0/swagger-ui/%2e%2e%2fpackage.json",
      "/api/v3.0/swagger-ui/swagger-ui.js.map",
    ])
      assert.equal((await app.request(path)).status, 404, path);
  });

  it("openApiEnabled false: neither the document nor Swagger UI is served", async () => {
    const app = createHttpApp({ store: example.store, settings: httpEndpointSettings({ openApiEnabled: false }) });
    for (const path of ["/api/v3.0/openapi.json", "/api/v3.0/openapi.yaml", "/api/v3.0/swagger-ui/"]) {
      const answer = await call(app, "GET", path);
      assert.equal(answer.status, 400, path);
    }
  });

  it("with access control: the document is readable without a token and offers bearer authorization", async () => {
    const security: SecurityConfig = {
      authentication: {
        bearer: {
          issuer: "http://127.0.0.1:9/realms/plant",
          audience: "twinport",
          clockSkewSeconds: 30,
          nameClaim: "sub",
          rolesClaims: ["roles"],
          keyRefreshCooldownSeconds: 30,
        },
      },
      roleAssignments: [],
      rules: [],
    } as never;
    const app = createHttpApp({ store: example.store, settings: httpEndpointSettings(), security });
    const badToken = { authorization: "Bearer not-a-token" };
    assert.equal(
      (await call(app, "GET", "/api/v3.0/shells", { headers: badToken })).status,
      401,
      "the API checks tokens",
    );
    const document = (await documentOf(app)) as Document & { security: unknown };
    assert.deepEqual(document.components.securitySchemes, {
      bearerAuth: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "JWT",
        description: "An access token of the configured issuer (security.authentication.bearer)",
      },
    });
    assert.deepEqual(document.security, [{ bearerAuth: [] }, {}]);
    assert.equal((await call(app, "GET", "/api/v3.0/swagger-ui/")).status, 200);
    await SwaggerParser.validate(structuredClone(document) as never);
  });
});
