/**
 * Recognises AAS JSON written for an older version of the metamodel, so loading it fails with
 * "convert it" instead of a cryptic first deserialization error. Spec §9.2: "Models compliant with
 * v2.x or v3.0 release candidates cannot be loaded unchanged; they must be converted."
 *
 * Each sign is a shape v3.0 cannot have (a property v3.0 does not know, or a value of the wrong
 * JSON type where older versions put an object), so valid v3.0 input never matches.
 */

import { withArticle } from "./article.ts";
import { ABSTRACT_CLASSES } from "./metamodel-schema.ts";
import { isPlainObject } from "./plain-object.ts";

const CONVERT = "convert it to AAS v3.0 (e.g. with the AASX Package Explorer)";

const SUBMODEL_ELEMENT_TYPES = new Set(ABSTRACT_CLASSES.SubmodelElement);

type Sign = { format: "AAS v2.0 format" | "an AAS v3.0 release-candidate format"; why: string; path: string };

export function detectJsonFormatProblem(json: unknown): string | undefined {
  if (!isPlainObject(json)) return undefined;
  const sign = topLevelSign(json) ?? findSign(json, "", 0);
  if (sign === undefined) return undefined;
  const where = sign.path === "" ? "" : ` at ${sign.path}`;
  return `The model is in ${sign.format} (${sign.why}${where}); ${CONVERT}`;
}

function topLevelSign(environment: Record<string, unknown>): Sign | undefined {
  if (Array.isArray(environment.assets)) return v2('a top-level "assets" list', "assets");
  return undefined;
}

// The walk stops at this depth: real models are far shallower, and a hostile one must not
// exhaust the stack before the real reader reports it.
const MAX_DEPTH = 200;

function findSign(value: unknown, path: string, depth: number): Sign | undefined {
  if (depth > MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const sign = findSign(value[index], `${path}[${index}]`, depth + 1);
      if (sign !== undefined) return sign;
    }
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  const own = signOf(value, path);
  if (own !== undefined) return own;
  for (const [key, item] of Object.entries(value)) {
    const sign = findSign(item, path === "" ? key : `${path}.${key}`, depth + 1);
    if (sign !== undefined) return sign;
  }
  return undefined;
}

/** The sign carried by one object itself (not its children). v2.0 signs come first: they are certain. */
function signOf(object: Record<string, unknown>, path: string): Sign | undefined {
  const at = (key: string) => (path === "" ? key : `${path}.${key}`);
  const modelType = object.modelType;
  if (isPlainObject(modelType)) return v2('"modelType" as an object ({"name": …})', at("modelType"));
  if ("identification" in object) return v2('"identification" instead of "id"', at("identification"));
  if ("asset" in object && isPlainObject(object.asset))
    return v2('a shell with "asset" instead of "assetInformation"', at("asset"));
  if ("idType" in object || "local" in object) return v2('a key with "idType"/"local"', path);
  if (isPlainObject(object.valueType)) return v2('"valueType" as an object', at("valueType"));
  for (const key of ["inputVariable", "outputVariable", "inoutputVariable"]) {
    if (key in object) return v2(`"${key}" instead of "${key}s"`, at(key));
  }
  if (isPlainObject(object.dataSpecificationContent) && !("modelType" in object.dataSpecificationContent)) {
    return v2("a dataSpecificationContent without modelType", at("dataSpecificationContent"));
  }
  if ("conceptDictionaries" in object) return v2('"conceptDictionaries"', at("conceptDictionaries"));

  if (Array.isArray(object.keys) && object.type === "GlobalReference") {
    return rc('a Reference of type "GlobalReference" (v3.0: "ExternalReference")', at("type"));
  }
  if (modelType === "DataSpecificationIEC61360")
    return rc('modelType "DataSpecificationIEC61360" (v3.0: "DataSpecificationIec61360")', at("modelType"));
  if (modelType === "SubmodelElementStruct") return rc('modelType "SubmodelElementStruct"', at("modelType"));
  if (isPlainObject(object.globalAssetId))
    return rc('"globalAssetId" as a Reference (v3.0: a string)', at("globalAssetId"));
  if ("specificAssetId" in object) return rc('"specificAssetId" (v3.0: "specificAssetIds")', at("specificAssetId"));
  if ("dataSpecifications" in object)
    return rc('"dataSpecifications" (v3.0: "embeddedDataSpecifications")', at("dataSpecifications"));
  if (typeof modelType === "string" && SUBMODEL_ELEMENT_TYPES.has(modelType)) {
    if ("kind" in object) return rc(`${withArticle(modelType)} with "kind" (v3.0: only submodels have it)`, at("kind"));
    if ("mimeType" in object)
      return rc(`${withArticle(modelType)} with "mimeType" (v3.0: "contentType")`, at("mimeType"));
  }
  return undefined;
}

const v2 = (why: string, path: string): Sign => ({ format: "AAS v2.0 format", why, path });
const rc = (why: string, path: string): Sign => ({ format: "an AAS v3.0 release-candidate format", why, path });
