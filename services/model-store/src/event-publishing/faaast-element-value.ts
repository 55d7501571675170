import { type ElementJson, getChildren } from "@twinport/shared";

/**
 * An element's value as FA³ST writes it in its event messages (ValueChangeEventMessage.newValue,
 * the arguments of OperationInvoke/FinishEventMessage): its "typed" form, docs/events-mqtt.md.
 * FA³ST's JsonEventSerializer writes each ElementValue with `modelType` first, then the value
 * class's own fields, recursively: a collection's children are typed values again, keyed by idShort.
 * This is not the ValueOnly form (which has no modelType and no dataType): a FA³ST consumer
 * deserializes by `modelType` and reads a Property's type from `dataType`.
 */

const NUMERIC = new Set([
  "xs:decimal",
  "xs:integer",
  "xs:int",
  "xs:long",
  "xs:short",
  "xs:byte",
  "xs:nonNegativeInteger",
  "xs:positiveInteger",
  "xs:nonPositiveInteger",
  "xs:negativeInteger",
  "xs:unsignedInt",
  "xs:unsignedLong",
  "xs:unsignedShort",
  "xs:unsignedByte",
  "xs:double",
  "xs:float",
]);

/** FA³ST writes a typed value as its Java value: numbers and booleans as JSON numbers and booleans. */
export function typedValue(valueType: unknown, lexical: unknown): unknown {
  if (typeof lexical !== "string") return lexical ?? null;
  if (valueType === "xs:boolean") return lexical === "true" || lexical === "1";
  if (typeof valueType === "string" && NUMERIC.has(valueType)) {
    const double = valueType === "xs:double" || valueType === "xs:float";
    // XSD's INF and -INF are Java's Infinity (what Jackson writes, and Double.parseDouble reads).
    if (double && (lexical === "INF" || lexical === "+INF")) return "Infinity";
    if (double && lexical === "-INF") return "-Infinity";
    const number = Number(lexical);
    if (!Number.isFinite(number)) return lexical;
    // xs:double and xs:float are doubles; any other number type stays its exact lexical form where a
    // JSON number would lose digits (an integer beyond 2^53, a decimal with more digits than a
    // double holds: 0.1000000000000000000002 became 0.1).
    if (double) return number;
    if (/^[+-]?\d+$/.test(lexical) ? Number.isSafeInteger(number) : String(number) === canonicalDecimal(lexical))
      return number;
  }
  return lexical;
}

/**
 * An xs:decimal's digits without what does not change its value (a sign "+", leading zeros, trailing
 * zeros of the fraction, "-0"), as String(number) writes them: "2.50", "100.000" and "-.5" are
 * numbers a double holds exactly as written, and were sent as strings beside the numbers of
 * "0.5" (a black-box finding: a Range's min a string and its max a number).
 */
function canonicalDecimal(lexical: string): string | undefined {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(lexical);
  if (match === null) return undefined;
  const whole = match[2]!.replace(/^0+(?=\d)/, "") || "0";
  const fraction = (match[3] ?? "").replace(/0+$/, "");
  const digits = fraction === "" ? whole : `${whole}.${fraction}`;
  return match[1] === "-" && digits !== "0" ? `-${digits}` : digits;
}

/** Kinds that have no value (FA³ST has no ElementValue class for them): left out of containers. */
const WITHOUT_VALUE = new Set(["Operation", "Capability"]);

function children(element: Record<string, unknown>): Record<string, unknown>[] {
  return getChildren(element as ElementJson).filter(
    (child) => typeof child === "object" && child !== null && !WITHOUT_VALUE.has(String(child.modelType)),
  ) as Record<string, unknown>[];
}

/** Children by idShort, each as its typed value (FA³ST's Map<String, ElementValue>). */
function byIdShort(elements: Record<string, unknown>[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const element of elements)
    if (typeof element.idShort === "string") out[element.idShort] = faaastElementValue(element);
  return out;
}

/** An AAS Reference as FA³ST writes one (AAS JSON: type, keys, referredSemanticId); absent: null. */
function reference(value: unknown): unknown {
  return typeof value === "object" && value !== null ? structuredClone(value) : null;
}

/**
 * The typed value of one element (AAS JSON), or undefined for what is not an element. Kinds without a
 * value (Operation, Capability) are `{"modelType"}` alone.
 */
export function faaastElementValue(element: unknown): Record<string, unknown> | undefined {
  if (typeof element !== "object" || element === null) return undefined;
  const e = element as Record<string, unknown>;
  const modelType = typeof e.modelType === "string" ? e.modelType : "SubmodelElement";
  switch (modelType) {
    case "Property":
      return { modelType, dataType: e.valueType, value: typedValue(e.valueType, e.value) };
    case "Range": {
      // An open end (no min or no max) is left out, as FA³ST's serializer leaves out a null value:
      // `{"value": null}` fails its deserializer for numeric types.
      const range: Record<string, unknown> = { modelType };
      if (e.min !== undefined && e.min !== null)
        range.min = { dataType: e.valueType, value: typedValue(e.valueType, e.min) };
      if (e.max !== undefined && e.max !== null)
        range.max = { dataType: e.valueType, value: typedValue(e.valueType, e.max) };
      return range;
    }
    case "File":
    case "Blob":
      return { modelType, contentType: e.contentType ?? null, value: e.value ?? null };
    case "MultiLanguageProperty":
      // One single-entry object per language, as in ValueOnly: [{"de":"…"},{"en":"…"}].
      return {
        modelType,
        value: (Array.isArray(e.value) ? e.value : []).map((entry) => {
          const { language, text } = entry as { language: string; text: unknown };
          return { [language]: text };
        }),
      };
    case "ReferenceElement":
      // FA³ST's ReferenceElementValue is the Reference itself: its fields at the top level.
      return { modelType, ...(reference(e.value) ?? {}) };
    case "RelationshipElement":
      return { modelType, first: reference(e.first), second: reference(e.second) };
    case "AnnotatedRelationshipElement":
      // FA³ST names the field "annotation" (its JsonFieldNames, which its deserializer reads too):
      // one single-entry object per annotation.
      return {
        modelType,
        first: reference(e.first),
        second: reference(e.second),
        annotation: children(e).map((annotation) => byIdShort([annotation])),
      };
    case "SubmodelElementCollection":
      return { modelType, values: byIdShort(children(e)) };
    case "SubmodelElementList":
      return { modelType, values: children(e).map((item) => faaastElementValue(item)) };
    case "Entity": {
      // FA³ST's EntityValue bean: entityType, globalAssetId, specificAssetIds, statements (absent
      // ones left out, as its serializer leaves out nulls).
      const entity: Record<string, unknown> = { modelType, entityType: e.entityType ?? null };
      if (typeof e.globalAssetId === "string") entity.globalAssetId = e.globalAssetId;
      if (Array.isArray(e.specificAssetIds)) entity.specificAssetIds = structuredClone(e.specificAssetIds);
      entity.statements = byIdShort(children(e));
      return entity;
    }
    case "BasicEventElement": {
      // FA³ST's BasicEventElementValueSerializer: `observed`, left out when there is none.
      const event: Record<string, unknown> = { modelType };
      if (e.observed !== undefined && e.observed !== null) event.observed = reference(e.observed);
      return event;
    }
    default:
      return { modelType };
  }
}
