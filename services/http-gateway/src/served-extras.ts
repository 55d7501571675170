import type { HttpEndpointSettings } from "./http-endpoint-settings.ts";
import { OPENAPI_JSON_PATH, SWAGGER_UI_PATH } from "./routes/openapi-routes.ts";

/** Something an HTTP endpoint serves for people besides the API itself, for the start banner. */
export interface ServedExtra {
  label: string;
  /** Absolute path on the endpoint, e.g. "/api/v3.0/swagger-ui/". */
  path: string;
}

/**
 * The pages and documents an endpoint with these settings serves beside the API: the banner lists
 * their URLs. One entry per extra, each with the setting that switches it.
 */
const EXTRAS: readonly (ServedExtra & { served(settings: HttpEndpointSettings): boolean })[] = [
  { label: "Console", path: "/console/", served: (settings) => settings.consoleEnabled },
  { label: "OpenAPI", path: OPENAPI_JSON_PATH, served: (settings) => settings.openApiEnabled },
  { label: "Swagger UI", path: `${SWAGGER_UI_PATH}/`, served: (settings) => settings.openApiEnabled },
];

export function servedExtras(settings: HttpEndpointSettings): ServedExtra[] {
  return EXTRAS.filter((extra) => extra.served(settings)).map(({ label, path }) => ({ label, path }));
}
