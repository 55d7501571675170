import { isPlainObject } from "@twinport/shared";
/**
 * Reading AID/AIMC submodels as they are stored (AAS JSON): children by semanticId, references
 * resolved by key values. Everything here tolerates malformed input — a submodel posted by a client
 * is untrusted — and answers undefined rather than throwing.
 */

export type Json = Record<string, unknown>;

export interface Reference {
  type?: string;
  keys: { type: string; value: string }[];
}

export function asReference(value: unknown): Reference | undefined {
  if (!isPlainObject(value) || !Array.isArray(value.keys) || value.keys.length === 0) return undefined;
  const keys = value.keys.filter(
    (key): key is { type: string; value: string } =>
      isPlainObject(key) && typeof key.type === "string" && typeof key.value === "string",
  );
  return keys.length === value.keys.length
    ? { type: typeof value.type === "string" ? value.type : undefined, keys }
    : undefined;
}

/** The first key value of a semanticId (key and reference types are ignored, as FA³ST does). */
export function semanticIdOf(element: Json | undefined, field = "semanticId"): string | undefined {
  return asReference(element?.[field])?.keys[0]?.value;
}

export function supplementalSemanticIds(element: Json): string[] {
  const list = Array.isArray(element.supplementalSemanticIds) ? element.supplementalSemanticIds : [];
  return list
    .map((reference) => asReference(reference)?.keys[0]?.value)
    .filter((value): value is string => value !== undefined);
}

/** Child elements of a submodel, collection, list or entity. */
export function childrenOf(element: Json | undefined): Json[] {
  if (!element) return [];
  const list =
    element.modelType === "Submodel"
      ? element.submodelElements
      : element.modelType === "Entity"
        ? element.statements
        : element.value;
  return Array.isArray(list) ? list.filter(isPlainObject) : [];
}

/**
 * Children with one of the semanticIds; a list's items without one of their own count when the
 * list's semanticIdListElement matches (AASd-120 leaves them without idShort, and templates often
 * leave them without semanticId).
 */
export function childrenWith(element: Json | undefined, semanticIds: readonly string[]): Json[] {
  const listDefault =
    element?.modelType === "SubmodelElementList" ? semanticIdOf(element, "semanticIdListElement") : undefined;
  return childrenOf(element).filter((child) => {
    const own = semanticIdOf(child);
    return own !== undefined
      ? semanticIds.includes(own)
      : listDefault !== undefined && semanticIds.includes(listDefault);
  });
}

/** The child with one of the semanticIds, else the child with the template's idShort. */
export function childOf(element: Json | undefined, semanticIds: readonly string[], idShort?: string): Json | undefined {
  return (
    childrenWith(element, semanticIds)[0] ??
    (idShort === undefined ? undefined : childrenOf(element).find((child) => child.idShort === idShort))
  );
}

/** A Property's value as text (undefined when absent or not text). */
export function textOf(element: Json | undefined): string | undefined {
  return typeof element?.value === "string" ? element.value : undefined;
}

/** xs:boolean and the lenient forms templates use ("True", "1"), AID declaring many fields as xs:string. */
export function isTrue(element: Json | undefined): boolean {
  const text = textOf(element)?.trim().toLowerCase();
  return text === "true" || text === "1";
}

/** The path from the submodel to the element a reference names: [submodel, …, element]. */
export function resolvePath(reference: Reference, submodel: (id: string) => Json | undefined): Json[] | undefined {
  const [first, ...rest] = reference.keys;
  const root = first ? submodel(first.value) : undefined;
  if (!root) return undefined;
  const path = [root];
  let current = root;
  for (const key of rest) {
    const children = childrenOf(current);
    // Key values only (FA³ST): a list item is named by its index, anything else by idShort.
    const next =
      current.modelType === "SubmodelElementList" && /^\d+$/.test(key.value)
        ? children[Number(key.value)]
        : children.find((child) => child.idShort === key.value);
    if (!next) return undefined;
    path.push(next);
    current = next;
  }
  return path;
}

/** The reference in the text form provider keys use: `(Submodel)id, (Property)p`. */
export function referenceText(reference: Reference): string {
  return reference.keys.map((key) => `(${key.type})${key.value}`).join(", ");
}

/** Two references name the same thing when their key values agree (key types are not compared). */
export function startsWith(reference: Reference, prefix: Reference): boolean {
  return (
    prefix.keys.length <= reference.keys.length &&
    prefix.keys.every((key, index) => reference.keys[index]!.value === key.value)
  );
}
