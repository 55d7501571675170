import type { IdentifiableKind } from "./lazy-identifiables.ts";

/** The child elements of one element: collection and list items, entity statements, annotations. */
function childrenOf(element: Record<string, unknown>): unknown[] {
  const children: unknown[] = [];
  for (const field of ["value", "statements", "annotations"])
    if (Array.isArray(element[field])) children.push(...(element[field] as unknown[]));
  return children;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * What an identifiable weighs against maxMaterializedElements (ADR 0036 "Bounded"): a submodel its
 * elements at every depth (each has an object node and a few variables), a shell or concept
 * description one (a few nodes of its own, no elements). Counted from the JSON its nodes are made of.
 */
export function elementWeight(kind: IdentifiableKind, json: unknown): number {
  if (kind !== "submodel" || !isObject(json)) return 1;
  let count = 0;
  const pending: unknown[] = Array.isArray(json.submodelElements) ? [...json.submodelElements] : [];
  while (pending.length > 0) {
    const element = pending.pop();
    if (!isObject(element)) continue;
    count++;
    // A Property's or MLP's value is not an array; only containers' are.
    if (element.modelType !== "Property" && element.modelType !== "MultiLanguageProperty")
      pending.push(...childrenOf(element));
  }
  return Math.max(count, 1);
}
