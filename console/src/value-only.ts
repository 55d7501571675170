/**
 * Applies a ValueOnly representation (AAS Part 2 §11.4: GET …/$value, and the `value` of an event)
 * to the elements on screen, so a live change shows without reading the whole submodel again.
 * Each element type has its own ValueOnly shape; kinds without a value (Operation, Capability)
 * are left alone.
 */
import { childrenOf, type Element, type LangString, type Reference } from "./model.ts";

type ValueOnly = unknown;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function applyValueOnly(element: Element, value: ValueOnly): void {
  switch (element.modelType) {
    case "Property":
      element.value = value === null || value === undefined ? undefined : String(value);
      return;
    case "MultiLanguageProperty":
      if (Array.isArray(value))
        element.value = value.flatMap((entry) =>
          isObject(entry) ? Object.entries(entry).map(([language, text]) => ({ language, text: String(text) })) : [],
        ) as LangString[];
      return;
    case "Range":
      if (isObject(value)) {
        element.min = value.min === undefined ? undefined : String(value.min);
        element.max = value.max === undefined ? undefined : String(value.max);
      }
      return;
    case "File":
    case "Blob":
      // A Blob's ValueOnly may leave its content out (AAS Part 2: only with extent=WithBlobValue).
      if (isObject(value)) {
        if (typeof value.contentType === "string") element.contentType = value.contentType;
        if ("value" in value) element.value = value.value;
      }
      return;
    case "ReferenceElement":
      element.value = value as Reference;
      return;
    case "RelationshipElement":
    case "AnnotatedRelationshipElement":
      if (isObject(value)) {
        element.first = value.first as Reference;
        element.second = value.second as Reference;
        if (isObject(value.annotations)) applyChildren(element.annotations ?? [], value.annotations);
      }
      return;
    case "Entity":
      if (isObject(value)) {
        if (typeof value.entityType === "string") element.entityType = value.entityType;
        element.globalAssetId = value.globalAssetId as string | undefined;
        if (isObject(value.statements)) applyChildren(element.statements ?? [], value.statements);
      }
      return;
    case "BasicEventElement":
      if (isObject(value)) element.observed = value.observed as Reference;
      return;
    case "SubmodelElementCollection":
      if (isObject(value)) applyChildren(childrenOf(element), value);
      return;
    case "SubmodelElementList":
      if (Array.isArray(value))
        childrenOf(element).forEach((child, i) => i < value.length && applyValueOnly(child, value[i]));
      return;
  }
}

/** The ValueOnly of a submodel or collection: its children's values by idShort. */
export function applyChildren(children: Element[], values: Record<string, unknown>): void {
  for (const child of children)
    if (child.idShort !== undefined && child.idShort in values) applyValueOnly(child, values[child.idShort]);
}

/** The element at an idShortPath ("A.B[2].C") among a submodel's elements. */
export function elementAt(elements: Element[], idShortPath: string): Element | undefined {
  let current: Element | undefined;
  let children = elements;
  for (const step of idShortPath.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    current = step.startsWith("[") ? children[Number(step.slice(1, -1))] : children.find((c) => c.idShort === step);
    if (current === undefined) return undefined;
    children = childrenOf(current);
  }
  return current;
}
