import { jsonNumberToken, valueJsonKind } from "@twinport/shared";
import { DataType, type LocalizedText, type StatusCode, StatusCodes, type Variant, VariantArrayType } from "node-opcua";
import { ENTITY_TYPES } from "./aas-enums.ts";
import { describeVariant, variantToLexical } from "./datatype-mapping.ts";
import { referenceFromKeys } from "./structured-values.ts";
import type { WriteBinding } from "./write-binding.ts";

export type BodyOrError = { body: string } | { error: StatusCode; message: string };

/**
 * The body of the `PatchSubmodelElementValueByPath` command for a write: the element's ValueOnly
 * form (only the written part; the store keeps the rest), wrapped as {"<idShort>": …} when the
 * element has an idShort, so it reads the same way whatever the idShort is.
 */
export function valueOnlyBody(binding: WriteBinding, value: Variant): BodyOrError {
  const inner = innerValue(binding, value);
  if ("error" in inner) return inner;
  const body = binding.idShort === undefined ? inner.json : `{${JSON.stringify(binding.idShort)}:${inner.json}}`;
  return { body };
}

type JsonOrError = { json: string } | { error: StatusCode; message: string };

function innerValue(binding: WriteBinding, value: Variant): JsonOrError {
  const { target } = binding;
  switch (target.field) {
    case "value":
      return typedJson(value, target.valueType);
    case "min":
    case "max": {
      const bound = typedJson(value, target.valueType);
      return "error" in bound ? bound : { json: `{"${target.field}":${bound.json}}` };
    }
    case "blob":
      if (value.dataType === DataType.Null) return { json: `{"value":null}` };
      if (value.dataType !== DataType.ByteString || value.arrayType !== VariantArrayType.Scalar)
        return mismatch("a ByteString", value);
      return {
        json: `{"value":${JSON.stringify(value.value === null ? "" : (value.value as Buffer).toString("base64"))}}`,
      };
    case "multi-language":
      return multiLanguageJson(value);
    case "reference":
    case "first":
    case "second": {
      const reference = referenceFromKeys(binding.structures, value, target.referenceType);
      if ("error" in reference) return reference;
      const json = JSON.stringify(reference.reference);
      return { json: target.field === "reference" ? json : `{"${target.field}":${json}}` };
    }
    case "entity-type": {
      if (value.dataType !== DataType.Int32 || value.arrayType !== VariantArrayType.Scalar)
        return mismatch("an Int32 (AASEntityTypeDataType)", value);
      const entityType = ENTITY_TYPES[value.value as number];
      if (entityType === undefined)
        return {
          error: StatusCodes.BadOutOfRange,
          message: `${String(value.value)} is not an AASEntityTypeDataType value`,
        };
      // OPC UA writes one node at a time (node-opcua awaits each of a WriteRequest in turn), and
      // AASd-014 allows a co-managed entity no asset ids and a self-managed one not none: written
      // alone, EntityType could never change. CoManagedEntity therefore takes the ids away with it;
      // the other way round a client writes GlobalAssetId, which makes the entity self-managed.
      if (entityType === "CoManagedEntity")
        return { json: `{"entityType":"CoManagedEntity","globalAssetId":null,"specificAssetIds":null}` };
      return { json: `{"entityType":"${entityType}"}` };
    }
    case "global-asset-id": {
      if (
        value.dataType === DataType.Null ||
        (value.dataType === DataType.String && (value.value === null || value.value === ""))
      )
        return { json: `{"globalAssetId":null}` };
      if (value.dataType !== DataType.String || value.arrayType !== VariantArrayType.Scalar)
        return mismatch("a String", value);
      // An asset id makes the entity self-managed (the only kind that may have one, AASd-014).
      return { json: `{"entityType":"SelfManagedEntity","globalAssetId":${JSON.stringify(value.value)}}` };
    }
  }
}

/** A lexical value as ValueOnly JSON: numbers as number tokens (digits kept), booleans, strings. */
function typedJson(value: Variant, valueType: unknown): JsonOrError {
  const result = variantToLexical(value, valueType);
  if ("error" in result) return result;
  const { lexical } = result;
  if (lexical === null) return { json: "null" };
  switch (valueJsonKind(valueType)) {
    case "boolean":
      return { json: lexical === "true" || lexical === "1" ? "true" : "false" };
    case "number":
      // INF and NaN have no JSON number: they travel as strings, which the store accepts.
      return { json: jsonNumberToken(lexical) ?? JSON.stringify(lexical) };
    default:
      return { json: JSON.stringify(lexical) };
  }
}

function multiLanguageJson(value: Variant): JsonOrError {
  if (value.dataType === DataType.Null) return { json: "null" };
  if (value.dataType !== DataType.LocalizedText || value.arrayType !== VariantArrayType.Array)
    return mismatch("an array of LocalizedText", value);
  const texts: Record<string, string>[] = [];
  for (const text of value.value as LocalizedText[]) {
    // AAS language-tagged strings need a language: a LocalizedText without a locale has none.
    if (!text?.locale || typeof text.text !== "string")
      return { error: StatusCodes.BadOutOfRange, message: "every LocalizedText needs a locale and a text" };
    texts.push({ [text.locale]: text.text });
  }
  return { json: JSON.stringify(texts) };
}

function mismatch(expected: string, value: Variant): JsonOrError {
  return { error: StatusCodes.BadTypeMismatch, message: `expected ${expected}, got ${describeVariant(value)}` };
}
