/**
 * The `$path` form (API v3.0.1 clause 11.4.3, digest §i): idShortPaths, always full paths from the
 * submodel root. Defined on a Submodel and on the element kinds whose children are addressed by
 * path: SubmodelElementCollection, SubmodelElementList and Entity (the 3.1 applicability table; the
 * IDTA test engine expects a 4xx for every other kind, AnnotatedRelationshipElement included).
 */

const PATH_CONTAINERS = new Set(["SubmodelElementCollection", "SubmodelElementList", "Entity"]);

export function hasPathItems(element: Record<string, unknown>): boolean {
  return PATH_CONTAINERS.has(String(element.modelType));
}

/** The idShort of the top-level element an idShortPath starts with: "a.b[2].c" → "a". */
export function rootIdShortOf(path: string): string {
  const end = path.search(/[.[]/);
  return end < 0 ? path : path.slice(0, end);
}
