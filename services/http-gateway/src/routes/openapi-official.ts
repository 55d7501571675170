import { readFileSync } from "node:fs";
import { parse } from "yaml";

/** An OpenAPI 3.0 document, as far as this gateway reads and writes it. */
export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  servers?: { url: string; description?: string }[];
  paths: Record<string, OpenApiPathItem>;
  components: Record<string, Record<string, unknown>>;
  security?: Record<string, string[]>[];
  tags?: { name: string; description?: string }[];
}
export type OpenApiOperation = Record<string, unknown>;
export type OpenApiPathItem = Record<string, OpenApiOperation | unknown[] | undefined> & { parameters?: unknown[] };

/**
 * The official v3.0.1 files copied into this package (src/openapi/, shipped beside the compiled
 * code by scripts/build.ts): the full profile of every service Twinport implements. A read profile
 * is a subset of its full profile, so these hold every operation any profile set can serve.
 */
const FOLDER = new URL("../openapi/aas-api-v3.0.1/", import.meta.url);
const SERVICE_FILES = [
  "AssetAdministrationShellRepositoryServiceSpecification/V3.0_SSP-001.yaml",
  "SubmodelRepositoryServiceSpecification/V3.0_SSP-001.yaml",
  "ConceptDescriptionServiceSpecification/V3.0_SSP-001.yaml",
  "DiscoveryServiceSpecification/V3.0_SSP-001.yaml",
  "AasxFileServerServiceSpecification/V3.0_SSP-001.yaml",
];
/** The files' references to the shared domains on SwaggerHub; the domains are merged in as local components. */
const DOMAIN_REFERENCE =
  /^https:\/\/api\.swaggerhub\.com\/domains\/Plattform_i40\/Part[12]-(?:MetaModel|API)-Schemas\/V3\.0\.1#/;

let merged: OpenApiDocument | undefined;

/**
 * Every path of the service files in one document whose references all resolve inside it: read and
 * merged once per process (about 300 KB of YAML), then shared by every endpoint. A path that two
 * files both describe (/description, /serialization) keeps the first file's operations.
 */
export function officialApi(): OpenApiDocument {
  if (merged) return merged;
  const components: Record<string, Record<string, unknown>> = { schemas: {}, parameters: {}, responses: {} };
  for (const domain of ["Part1-MetaModel-Schemas/openapi.yaml", "Part2-API-Schemas/openapi.yaml"]) {
    const document = readYaml(domain) as { components: Record<string, Record<string, unknown>> };
    for (const [kind, entries] of Object.entries(document.components))
      Object.assign((components[kind] ??= {}), entries);
  }
  const paths: Record<string, OpenApiPathItem> = {};
  for (const file of SERVICE_FILES) {
    const document = readYaml(file) as { paths: Record<string, OpenApiPathItem> };
    for (const [path, item] of Object.entries(document.paths)) paths[path] ??= item;
  }
  merged = localReferences({ openapi: "3.0.3", info: {}, paths, components }) as OpenApiDocument;
  return merged;
}

function readYaml(file: string): unknown {
  return parse(readFileSync(new URL(file, FOLDER), "utf8"));
}

/** A copy with every SwaggerHub domain `$ref` turned into the local `#/components/...` one. */
function localReferences(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(localReferences);
  if (value === null || typeof value !== "object") return value;
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    copy[key] =
      key === "$ref" && typeof entry === "string" ? entry.replace(DOMAIN_REFERENCE, "#") : localReferences(entry);
  }
  return copy;
}
