import { isPlainObject } from "./plain-object.ts";

/**
 * JSON Merge Patch (RFC 7386 §2), the PATCH semantics of the AAS API (spec §4.4): the patch names
 * only what changes; a member set to `null` is removed; anything that is not an object (arrays
 * included) replaces the target's member as a whole. Written here instead of taken from a library:
 * the algorithm is ten lines, and it must treat lossless-json's LosslessNumber (a class instance,
 * not a plain object) as a value.
 *
 * Pure: neither argument is modified; unchanged parts of `target` are shared with the result.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    // Defined, not assigned: a "__proto__" member (refused by the parsers, but this function takes
    // any object) must stay data and never replace the result's prototype.
    else
      Object.defineProperty(result, key, {
        value: mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return result;
}
