import * as aas from "./aas-core.cts";
import { AasError } from "./aas-error.ts";
import { normalizeInput } from "./input-normalization.ts";
import { setAsideLongBinaryValues } from "./long-binary-values.ts";
import { guardedCheck } from "./verification-guard.ts";
import { verificationSummary } from "./verification-summary.ts";

/**
 * Reading AAS JSON into aas-core instances and writing them back. `readAas` is the single door
 * for model input: pre-pass (unknown properties, null, empty typed values), jsonization,
 * optional verification with every error collected, and the canonical JSON we store.
 */

export type AasClassName =
  | "AssetAdministrationShell"
  | "Submodel"
  | "SubmodelElement"
  | "ConceptDescription"
  | "Environment";

type FromJsonable = (
  jsonable: aas.jsonization.JsonValue,
) => aas.common.Either<aas.types.Class, aas.jsonization.DeserializationError>;

const FROM_JSONABLE: Record<AasClassName | "Reference" | "SpecificAssetId" | "LangStringTextType", FromJsonable> = {
  AssetAdministrationShell: aas.jsonization.assetAdministrationShellFromJsonable,
  Submodel: aas.jsonization.submodelFromJsonable,
  SubmodelElement: aas.jsonization.submodelElementFromJsonable,
  ConceptDescription: aas.jsonization.conceptDescriptionFromJsonable,
  Environment: aas.jsonization.environmentFromJsonable,
  Reference: aas.jsonization.referenceFromJsonable,
  SpecificAssetId: aas.jsonization.specificAssetIdFromJsonable,
  LangStringTextType: aas.jsonization.langStringTextTypeFromJsonable,
};

/** Classes readable by `readAas`, plus the small ones ValueOnly input carries. */
export type ReadableClassName = keyof typeof FROM_JSONABLE;

export interface ReadResult {
  instance: aas.types.Class;
  /** Canonical AAS JSON of the instance (aas-core's toJsonable): what the store keeps. */
  jsonable: Record<string, unknown>;
}

export function readAas(jsonable: unknown, target: AasClassName, options: { validate: boolean }): ReadResult {
  return readModel(jsonable, target, options);
}

/** `readAas` for any readable class, including Reference and SpecificAssetId (ValueOnly input). */
export function readModel(jsonable: unknown, target: ReadableClassName, options: { validate: boolean }): ReadResult {
  const cleaned = normalizeInput(jsonable, target);
  const parsed = FROM_JSONABLE[target](cleaned as aas.jsonization.JsonValue);
  if (parsed.error !== null) {
    const path = parsed.error.path.toString();
    const where = path === "" ? "" : ` at ${path}`;
    throw new AasError(
      "deserialization",
      `Invalid ${target}${where}: ${parsed.error.message}`,
      path === "" ? {} : { path },
    );
  }
  const instance = parsed.mustValue();
  if (options.validate) assertValid(instance, target, cleaned);
  return { instance, jsonable: toJsonable(instance) };
}

/** Every constraint violation, "path: message", in aas-core's order. */
export function verificationErrors(instance: aas.types.Class): string[] {
  const collect = () => {
    const errors: string[] = [];
    for (const error of aas.verification.verify(instance)) {
      const path = error.path.toString().replace(/^\./, "");
      errors.push(path === "" ? error.message : `${path}: ${error.message}`);
    }
    return errors;
  };
  try {
    return collect();
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  // The stack overflowed on a long value: long binary values are checked on their own (a firmware
  // image as xs:base64Binary is no error), anything else still too long is refused as before.
  const aside = setAsideLongBinaryValues(instance);
  try {
    return [
      ...guardedCheck(`Invalid ${aas.types.ModelType[instance.modelType()] ?? "model"}`, collect),
      ...aside.invalid,
    ];
  } finally {
    aside.restore();
  }
}

function assertValid(instance: aas.types.Class, target: string, jsonable: unknown): void {
  const details = verificationErrors(instance);
  if (details.length === 0) return;
  throw new AasError("verification", verificationSummary(target, details, jsonable), { details });
}

export function toJsonable(instance: aas.types.Class): Record<string, unknown> {
  return aas.jsonization.toJsonable(instance) as Record<string, unknown>;
}
