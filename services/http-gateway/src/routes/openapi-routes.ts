import type { Hono } from "hono";
import { stringify } from "yaml";
import { API_PREFIX, type ApiRoute } from "../http/api-routes.ts";
import { describeApi } from "./openapi-document.ts";
import type { OpenApiDocument } from "./openapi-official.ts";
import { swaggerUi } from "./swagger-ui.ts";

/** Where the description of the API is served (docs/adr/0032), inside the API prefix so a proxy that forwards the API forwards it too. */
export const OPENAPI_JSON_PATH = `${API_PREFIX}/openapi.json`;
export const OPENAPI_YAML_PATH = `${API_PREFIX}/openapi.yaml`;
export const SWAGGER_UI_PATH = `${API_PREFIX}/swagger-ui`;

export interface OpenApiRouteOptions {
  routes: readonly ApiRoute[];
  enabledProfiles: readonly string[];
  bearer: boolean;
}

/**
 * GET /api/v3.0/openapi.json (and .yaml) and Swagger UI at /api/v3.0/swagger-ui/. Registered before
 * the API's own middleware: the description holds no model data, so it is readable by whoever can
 * reach the endpoint (like GET /description), and its pages are not AAS resources to negotiate.
 * A route without a description is a bug the route-comparison test catches; in production it is
 * only left out.
 */
export function mountOpenApiRoutes(app: Hono, options: OpenApiRouteOptions): void {
  // Built on first request, then kept: reading the official files costs about 0.3 s of CPU, which
  // a start (and every test process) should not pay when nobody asks for the description.
  let json: string | undefined;
  let yaml: string | undefined;
  let document: OpenApiDocument | undefined;
  const described = () => (document ??= describeApi(options).document);
  app.get(OPENAPI_JSON_PATH, (c) => {
    json ??= JSON.stringify(described());
    return c.body(json, 200, { "Content-Type": "application/json" });
  });
  app.get(OPENAPI_YAML_PATH, (c) => {
    yaml ??= stringify(described(), { aliasDuplicateObjects: false });
    return c.body(yaml, 200, { "Content-Type": "application/yaml; charset=utf-8" });
  });
  const ui = swaggerUi(SWAGGER_UI_PATH, "../openapi.json");
  app.get(SWAGGER_UI_PATH, ui);
  app.get(`${SWAGGER_UI_PATH}/*`, ui);
}
