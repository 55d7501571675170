/**
 * A submodel's semanticId as its events carry it (ChangeEvent.submodelSemanticId): the Reference,
 * or null when it has none, so "has none" and "not said" stay apart. `submodel` is its AAS JSON, as
 * an object or as the text the store keeps.
 */
export function submodelSemanticIdOf(submodel: unknown): unknown {
  const value = typeof submodel === "string" ? JSON.parse(submodel) : submodel;
  return (value as { semanticId?: unknown } | null)?.semanticId ?? null;
}
