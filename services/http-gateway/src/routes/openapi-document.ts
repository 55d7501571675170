import { API_PREFIX, type ApiRoute } from "../http/api-routes.ts";
import { isServed } from "../profiles.ts";
import { type OpenApiDocument, type OpenApiOperation, type OpenApiPathItem, officialApi } from "./openapi-official.ts";
import { PATH_ALIASES, PROPRIETARY_OPERATIONS } from "./openapi-proprietary.ts";

export interface OpenApiOptions {
  /** The routes mounted on the endpoint (all of them; the profiles decide which are served). */
  routes: readonly ApiRoute[];
  /** The endpoint's `profiles`; empty means all. */
  enabledProfiles: readonly string[];
  /** Bearer tokens are accepted (security.authentication.bearer): Swagger UI then offers "Authorize". */
  bearer: boolean;
}

export interface DescribedApi {
  document: OpenApiDocument;
  /** "METHOD /path" of served operations that neither the official files nor the proprietary table describe. */
  undocumented: string[];
}

/**
 * The OpenAPI document of exactly what this endpoint serves (docs/adr/0032): for every served
 * operation of `routes`, the official v3.0.1 operation, else the alias's official one, else the
 * proprietary entry. Built from the same route list `mountApiRoutes` registers, so a route added
 * or a profile removed changes both. The server URL is relative (`/api/v3.0`): it holds for any
 * host, port and scheme the document is fetched with, a reverse proxy's included.
 */
export function describeApi(options: OpenApiOptions): DescribedApi {
  const official = officialApi();
  const paths: Record<string, OpenApiPathItem> = {};
  const undocumented: string[] = [];
  const operationIds = new Set<string>();
  for (const route of options.routes) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    for (const { method, profiles } of route.operations) {
      if (!isServed(profiles, options.enabledProfiles)) continue;
      const found = describedOperation(official, path, method.toLowerCase());
      if (!found) {
        undocumented.push(`${method} ${path}`);
        continue;
      }
      const item = (paths[path] ??= {});
      if (found.pathParameters && !item.parameters) item.parameters = found.pathParameters;
      item[method.toLowerCase()] = { ...found.operation, operationId: uniqueId(found.operation, operationIds) };
    }
  }
  const document: OpenApiDocument = {
    openapi: "3.0.3",
    info: {
      title: "Twinport: AAS API v3.0.1 of this endpoint",
      description:
        "The operations this endpoint serves (its configured profiles), as described by the official OpenAPI files of the AAS Part 2 API v3.0.1 (© IDTA, admin-shell-io/aas-specs-api v3.0.1, CC BY 4.0), plus Twinport's proprietary calls.",
      version: "V3.0.1",
      license: { name: "CC BY 4.0", url: "https://creativecommons.org/licenses/by/4.0/" },
    },
    servers: [{ url: API_PREFIX, description: "This endpoint" }],
    paths,
    components: reachableComponents(official.components, paths),
  };
  if (options.bearer) {
    document.components.securitySchemes = {
      bearerAuth: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "JWT",
        description: "An access token of the configured issuer (security.authentication.bearer)",
      },
    };
    // Optional: a request without a token is anonymous, and the access rules decide.
    document.security = [{ bearerAuth: [] }, {}];
  }
  return { document, undocumented };
}

function describedOperation(
  official: OpenApiDocument,
  path: string,
  method: string,
): { operation: OpenApiOperation; pathParameters?: unknown[] } | undefined {
  const item = official.paths[path];
  const operation = item?.[method];
  if (operation && !Array.isArray(operation)) return { operation, pathParameters: item.parameters };
  for (const alias of PATH_ALIASES) {
    if (!path.includes(alias.from)) continue;
    const canonical = path.replace(alias.from, alias.to);
    const found = describedOperation(official, canonical, method);
    if (!found) continue;
    const description = `${alias.note} ${method.toUpperCase()} ${canonical}.`;
    return { ...found, operation: { ...found.operation, description } };
  }
  const proprietary = PROPRIETARY_OPERATIONS[`${method.toUpperCase()} ${path}`];
  return proprietary ? { operation: proprietary } : undefined;
}

/** operationIds must be unique in one document; the files reuse some across mounts (and aliases repeat them). */
function uniqueId(operation: OpenApiOperation, used: Set<string>): string {
  const base = String(operation.operationId ?? "Operation");
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base}_${n}`;
  used.add(id);
  return id;
}

/** Only the components the served paths reach, so a restricted endpoint's document stays small. */
function reachableComponents(
  all: Record<string, Record<string, unknown>>,
  paths: Record<string, OpenApiPathItem>,
): Record<string, Record<string, unknown>> {
  const kept: Record<string, Record<string, unknown>> = {};
  const pending: unknown[] = [paths];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) pending.push(...value);
    else if (value !== null && typeof value === "object") {
      for (const [key, entry] of Object.entries(value)) {
        if (key === "$ref" && typeof entry === "string") {
          const match = /^#\/components\/([^/]+)\/(.+)$/.exec(entry);
          if (!match) continue;
          const [, kind, name] = match as unknown as [string, string, string];
          if (kept[kind]?.[name] !== undefined || all[kind]?.[name] === undefined) continue;
          (kept[kind] ??= {})[name] = all[kind][name];
          pending.push(all[kind][name]);
        } else pending.push(entry);
      }
    }
  }
  return kept;
}
