import { childrenKey, containerKey, type ElementJson, getChildren } from "./element-tree.ts";

/**
 * `extent=withoutBlobValue` (the API default, digest §c) in the normal form: every Blob keeps its
 * contentType but loses its bytes. Works on a submodel or an element; containers are copied only
 * where a Blob below them changed, everything else is shared with the input.
 */
export function withoutBlobValues<T extends ElementJson>(object: T): T {
  if (object.modelType === "Blob") {
    if (object.value === undefined) return object;
    const { value: _bytes, ...rest } = object;
    return rest as T;
  }
  const key = object.modelType === "Submodel" ? containerKey(object) : childrenKey(object);
  if (key === undefined) return object;
  const children = getChildren(object);
  let changed = false;
  const stripped = children.map((child) => {
    const result = withoutBlobValues(child);
    changed ||= result !== child;
    return result;
  });
  return changed ? { ...object, [key]: stripped } : object;
}
