import { AasError } from "./aas-error.ts";

/**
 * `__proto__` is the one JSON member name that plain property assignment (`target[key] = value`,
 * Object.assign, a merge patch) turns into a prototype change instead of data. No AAS input has a
 * member of that name (it is neither a metamodel property, nor an idShort, nor a language tag), so
 * a parsed document that carries one anywhere is refused at the parser, before any code copies it.
 * `constructor` and `prototype` are valid idShorts: they stay data, and readers look them up as
 * own properties only.
 */
export function refuseProtoKeys(value: unknown, text: string): void {
  // The key can only be there if its letters are, written plainly or as \u escapes.
  if (!text.includes("__proto__") && !text.includes("\\u")) return;
  // Iterative: a hostile document may be nested far deeper than the call stack allows.
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item !== "object" || item === null) continue;
    if (Array.isArray(item)) {
      for (const element of item) pending.push(element);
      continue;
    }
    if (Object.hasOwn(item, "__proto__")) throw new AasError("unknown-property", `The member name "__proto__" is not allowed (it would set an object's prototype)`);
    for (const key of Object.keys(item)) pending.push((item as Record<string, unknown>)[key]);
  }
}
