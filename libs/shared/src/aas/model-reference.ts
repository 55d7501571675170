import type { PathSegment } from "./id-short-path.ts";

/**
 * The `$reference` form (digest §i): a ModelReference to the addressed object. An element's keys
 * are the Submodel key followed by one key per path step, typed by the step's element kind (its
 * KeyTypes name equals its modelType); a list item's key value is its index (AASd-128).
 */

export interface ReferenceKey {
  type: string;
  value: string;
}

export interface ModelReference {
  type: "ModelReference";
  keys: ReferenceKey[];
}

export function submodelReference(submodelId: string): ModelReference {
  return { type: "ModelReference", keys: [{ type: "Submodel", value: submodelId }] };
}

/** `steps` are the element's path segments from the root, each with the modelType found there. */
export function elementReference(
  submodelId: string,
  steps: { segment: PathSegment; modelType: string }[],
): ModelReference {
  const keys = steps.map(({ segment, modelType }) => ({
    type: modelType,
    value: "index" in segment ? String(segment.index) : segment.idShort,
  }));
  return { type: "ModelReference", keys: [...submodelReference(submodelId).keys, ...keys] };
}
