/**
 * The official v3.0.1 registry OpenAPI files (copied into tests/fixtures/registry-openapi), compiled
 * into JSON-schema validators for request bodies. The files point at each other through SwaggerHub
 * URLs; each document is registered under its own URL, so those `$ref`s resolve locally.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { parse } from "yaml";

export const OPENAPI_DIR = new URL("../../fixtures/registry-openapi/", import.meta.url).pathname;

const SWAGGERHUB = "https://api.swaggerhub.com/domains/Plattform_i40";
/** The schema documents, under the URLs the service specifications use for them. */
const SCHEMA_DOCUMENTS: Record<string, string> = {
  [`${SWAGGERHUB}/Part1-MetaModel-Schemas/V3.0.1`]: "Part1-MetaModel-Schemas/openapi.yaml",
  [`${SWAGGERHUB}/Part2-API-Schemas/V3.0.1`]: "Part2-API-Schemas/openapi.yaml",
};

export const AAS_REGISTRY_SPEC = "AssetAdministrationShellRegistryServiceSpecification/V3.0_SSP-001.yaml";
export const SUBMODEL_REGISTRY_SPEC = "SubmodelRegistryServiceSpecification/V3.0_SSP-001.yaml";

type OpenApiDocument = {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: unknown }> } }>>;
};

function load(file: string): unknown {
  return parse(readFileSync(join(OPENAPI_DIR, file), "utf8"));
}

// ajv-formats is CommonJS with a default export; under tsx it arrives wrapped once more.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

/** One message per schema violation, with the JSON pointer of the offending part. */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map(
    (e) =>
      `${e.instancePath || "/"} ${e.message ?? "is invalid"}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ""}`,
  );
}

/**
 * The metamodel's XML-character patterns write astral ranges as `\U00010000-\U0010FFFF` (a
 * Python/XSD escape JavaScript does not know); with the unicode flag `\u{10000}` means the same.
 */
function xmlCharacterRegExp(pattern: string, flags: string): RegExp {
  return new RegExp(
    pattern.replace(/\\U([0-9A-Fa-f]{8})/g, (_, hex: string) => `\\u{${hex.replace(/^0+(?=.)/, "")}}`),
    flags,
  );
}
xmlCharacterRegExp.code = "new RegExp";

export interface RequestBodySchemas {
  /** The validator of the JSON request body of `method` on the spec's `path` template, if the operation has one. */
  forOperation(spec: string, path: string, method: string): ValidateFunction | undefined;
}

export function loadRequestBodySchemas(): RequestBodySchemas {
  // OpenAPI 3.0 adds keywords (example, nullable, discriminator…) that are not JSON schema: not strict.
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, code: { regExp: xmlCharacterRegExp } });
  addFormats(ajv);
  for (const [id, file] of Object.entries(SCHEMA_DOCUMENTS)) ajv.addSchema({ $id: id, ...(load(file) as object) });
  const specs = new Map<string, OpenApiDocument>();
  const compiled = new Map<string, ValidateFunction | undefined>();
  return {
    forOperation(spec, path, method) {
      const key = `${spec} ${method} ${path}`;
      if (compiled.has(key)) return compiled.get(key);
      if (!specs.has(spec)) specs.set(spec, load(spec) as OpenApiDocument);
      const schema =
        specs.get(spec)!.paths[path]?.[method.toLowerCase()]?.requestBody?.content?.["application/json"]?.schema;
      const validate = schema === undefined ? undefined : ajv.compile(schema as object);
      compiled.set(key, validate);
      return validate;
    },
  };
}
