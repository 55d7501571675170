import { childrenKey, containerKey, type ElementJson, getChildren, isList } from "./element-tree.ts";

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

/**
 * After a normal-form merge patch (arrays replaced whole): a Blob of `patched` that has no `value`
 * key keeps the bytes of the Blob it replaces in `current` (same idShort in the same container, same
 * index in a list). The default GET leaves Blob bytes out (`extent=withoutBlobValue`), so a client's
 * GET → edit → PATCH of a container would otherwise drop the bytes of every Blob in it. An explicit
 * `"value": null` still clears them. Containers are copied only where a value was put back.
 */
export function keepBlobValues(current: ElementJson, patched: ElementJson): ElementJson {
  // Children only: the target itself was merged key by key, so a Blob target without `value` was
  // cleared by an explicit `null`.
  if (patched.modelType !== current.modelType) return patched;
  const key = patched.modelType === "Submodel" ? containerKey(patched) : childrenKey(patched);
  if (key === undefined || !Array.isArray(patched[key])) return patched;
  const before = getChildren(current);
  const byIdShort = new Map(before.map((child) => [child.idShort, child]));
  const list = isList(patched);
  let changed = false;
  const children = (patched[key] as ElementJson[]).map((child, index) => {
    if (typeof child !== "object" || child === null) return child;
    const counterpart = list ? before[index] : byIdShort.get(child.idShort);
    if (counterpart === undefined) return child;
    const kept = keptBlob(counterpart, child);
    changed ||= kept !== child;
    return kept;
  });
  return changed ? { ...patched, [key]: children } : patched;
}

/** One child of a replaced array: a Blob gets its bytes back, a container is looked into. */
function keptBlob(current: ElementJson, patched: ElementJson): ElementJson {
  if (patched.modelType === "Blob") {
    if (current.modelType !== "Blob" || Object.hasOwn(patched, "value") || current.value === undefined) return patched;
    return { ...patched, value: current.value };
  }
  return keepBlobValues(current, patched);
}
