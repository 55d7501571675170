import { type ElementJson, getChildren } from "./element-tree.ts";
import { lexicalToValueJson } from "./xsd-values.ts";

/**
 * ValueOnly serialization (API v3.0.1 §11.4.2, with the 3.0.2 fixes; digest §h). Returns the
 * UNWRAPPED value X of one element: 5000, {"min":…,"max":…}, {…} for a collection, […] for a list.
 * The HTTP layer decides about wrapping it in {"<idShort>": X}.
 *
 * - `undefined`: the element has no ValueOnly form (Operation, Capability). Containers leave such
 *   children out; they never cause an exception (spec §7.5).
 * - `null`: the element has a form but no value (a Property without value, …). Containers leave
 *   it out (3.0.2: absent attributes are not written); lists keep it as null, the only choice that
 *   keeps the positions of the other items.
 * - Numbers are lossless-json LosslessNumbers built from the lexical digits (write the result with
 *   stringifyLossless); INF/NaN stay strings; xs:boolean "1"/"0" become true/false.
 * - Nested objects (References, SpecificAssetIds) are copies.
 */

export interface ValueOnlyOptions {
  /** Blob bytes only with "withBlobValue" (default "withoutBlobValue"). */
  extent?: "withBlobValue" | "withoutBlobValue";
  /** "core": direct children only; a child collection renders {}, a child list [] (default "deep"). */
  level?: "deep" | "core";
}

export function toValueOnly(element: ElementJson, options: ValueOnlyOptions = {}): unknown | undefined {
  return valueOf(element, options, 0);
}

/** A Submodel's ValueOnly form: {"<idShort>": X, …} over its top-level elements. */
export function submodelToValueOnly(
  submodel: Record<string, unknown>,
  options: ValueOnlyOptions = {},
): Record<string, unknown> {
  const elements = Array.isArray(submodel.submodelElements) ? (submodel.submodelElements as ElementJson[]) : [];
  return namedValues(elements, options, 1);
}

/** Whether ValueOnly exists for this element kind (not for Operation and Capability). */
export function hasValueOnly(element: ElementJson): boolean {
  return element.modelType !== "Operation" && element.modelType !== "Capability";
}

// depth: 0 for the element asked for, 1 for its children, … With level "core", elements at depth
// 1 are shown without their own children.
function valueOf(element: ElementJson, options: ValueOnlyOptions, depth: number): unknown | undefined {
  const withChildren = options.level !== "core" || depth === 0;
  switch (element.modelType) {
    case "Property":
      return typeof element.value === "string" ? lexicalToValueJson(element.value, element.valueType) : null;
    case "MultiLanguageProperty":
      return Array.isArray(element.value) ? langStrings(element.value) : null;
    case "Range":
      return defined({
        min: typeof element.min === "string" ? lexicalToValueJson(element.min, element.valueType) : undefined,
        max: typeof element.max === "string" ? lexicalToValueJson(element.max, element.valueType) : undefined,
      });
    case "File":
      return defined({ contentType: element.contentType, value: element.value });
    case "Blob":
      return defined({
        contentType: element.contentType,
        value: options.extent === "withBlobValue" ? element.value : undefined,
      });
    case "ReferenceElement":
      return element.value === undefined ? null : copy(element.value);
    case "RelationshipElement":
      return defined({ first: copy(element.first), second: copy(element.second) });
    case "AnnotatedRelationshipElement": {
      const annotations = withChildren ? getChildren(element) : [];
      return defined({
        first: copy(element.first),
        second: copy(element.second),
        annotations: annotations.length > 0 ? namedValues(annotations, options, depth + 1) : undefined,
      });
    }
    case "Entity": {
      const statements = withChildren ? getChildren(element) : [];
      return defined({
        statements: statements.length > 0 ? namedValues(statements, options, depth + 1) : undefined,
        entityType: element.entityType,
        globalAssetId: element.globalAssetId,
        specificAssetIds: copy(element.specificAssetIds),
      });
    }
    case "BasicEventElement":
      return { observed: copy(element.observed) };
    case "SubmodelElementCollection":
      return withChildren ? namedValues(getChildren(element), options, depth + 1) : {};
    case "SubmodelElementList":
      return withChildren ? listValues(getChildren(element), options, depth + 1) : [];
    default:
      // Operation, Capability (and anything unknown): no ValueOnly form.
      return undefined;
  }
}

function namedValues(children: ElementJson[], options: ValueOnlyOptions, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const child of children) {
    const value = valueOf(child, options, depth);
    if (value !== undefined && value !== null && typeof child.idShort === "string") out[child.idShort] = value;
  }
  return out;
}

function listValues(items: ElementJson[], options: ValueOnlyOptions, depth: number): unknown[] {
  const out: unknown[] = [];
  for (const item of items) {
    const value = valueOf(item, options, depth);
    if (value !== undefined) out.push(value);
  }
  return out;
}

function langStrings(value: unknown[]): Record<string, unknown>[] {
  return value.map((entry) => {
    const { language, text } = entry as { language: string; text: unknown };
    return { [language]: text };
  });
}

function defined(object: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(object)) if (object[key] === undefined) delete object[key];
  return object;
}

function copy<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}
