import { AasError } from "./aas-error.ts";
import { canonicalLexical } from "./canonical-lexical.ts";
import { echoed } from "./echoed-value.ts";
import { ABSTRACT_CLASSES, CLASSES, type ClassRef, type PropertyShape } from "./metamodel-schema.ts";
import { elementsTooDeep, getMaxNestingDepth } from "./nesting-limit.ts";
import { isPlainObject } from "./plain-object.ts";
import { isValidLexical } from "./xsd-values.ts";

/**
 * The pre-pass before aas-core's jsonization, which (1) ignores unknown properties and (2) rejects
 * `null`. The spec wants the opposite on both counts:
 * - §7.2: loading fails on unknown JSON properties → AasError("unknown-property") with the path;
 * - §4.4.4: `null` in an inserting payload means default/absent → the property is left out;
 * - §4.4.5: an empty string as a typed value (Property.value, Range.min/max, Qualifier.value,
 *   Extension.value) means the same as null when the valueType does not accept "" (xs:int,
 *   xs:double, …; "" stays for xs:string, xs:anyURI, …).
 * - docs/adr/0031: an empty list of an optional property ("embeddedDataSpecifications": [],
 *   a collection's "value": []) and an empty idShort mean "not set", the only reading the
 *   metamodel allows them ("either not set or at least one item"; AASd-120 for list items).
 *   Generators (FA³ST's AID examples among them) write both; the stored form leaves them out.
 *
 * Returns a cleaned copy (model objects are new objects; the input is not modified). Values whose
 * JSON type is wrong are passed through untouched, for jsonization to report with its own path.
 */
export function normalizeInput(jsonable: unknown, classRef: ClassRef): unknown {
  return normalizeObject(jsonable, classRef, "", 0);
}

/** `depth`: how many submodel elements enclose this object (nesting-limit.ts). */
function normalizeObject(value: unknown, classRef: ClassRef, path: string, depth: number): unknown {
  if (!isPlainObject(value)) return value;
  const className = concreteClass(classRef, value);
  const schema = className === undefined ? undefined : CLASSES[className];
  // Unknown or missing modelType: nothing to check against; jsonization names the problem.
  if (schema === undefined) return value;
  if (SUBMODEL_ELEMENTS.has(className!) && ++depth > getMaxNestingDepth()) throw elementsTooDeep(depth, path);

  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = value[key];
    const keyPath = path === "" ? key : `${path}.${key}`;
    if (key === "modelType") {
      // Tolerated on classes that do not write it, as long as it names the class itself.
      if (!schema.hasModelType && item !== className) throw unknownProperty(key, keyPath, className!);
      if (item !== null) out[key] = item;
      continue;
    }
    const shape: PropertyShape | undefined = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    if (shape === undefined) throw unknownProperty(key, keyPath, className!);
    if (item === null) continue;
    if (key === "idShort" && item === "") continue;
    if (Array.isArray(item) && item.length === 0 && typeof shape === "object" && "many" in shape) {
      if (!REQUIRED_LISTS.has(`${className}.${key}`)) continue;
    }
    out[key] = normalizeProperty(item, shape, keyPath, depth);
  }
  if (className === "Blob") checkBlobValue(out.value, path === "" ? "value" : `${path}.value`);
  for (const key of schema.typedValues ?? []) {
    if (out[key] === "" && typeof out.valueType === "string" && !isValidLexical("", out.valueType)) delete out[key];
    // One stored form per value ("-0" → "0" for an xs:int, "1" → "true" for an xs:boolean, …).
    else if (typeof out[key] === "string") out[key] = canonicalLexical(out[key], out.valueType);
  }
  return out;
}

function normalizeProperty(value: unknown, shape: PropertyShape, path: string, depth: number): unknown {
  if (shape === "primitive") return value;
  if ("one" in shape) return normalizeObject(value, shape.one, path, depth);
  if (!Array.isArray(value)) return value;
  return value.map((item, index) => normalizeObject(item, shape.many, `${path}[${index}]`, depth));
}

const SUBMODEL_ELEMENTS = new Set(ABSTRACT_CLASSES.SubmodelElement);

/** Lists the metamodel requires (at least one item): an empty one stays, for verification to name. */
const REQUIRED_LISTS = new Set([
  "Reference.keys",
  "DataSpecificationIec61360.preferredName",
  "ValueList.valueReferencePairs",
]);

/**
 * How deep submodel elements nest in a (normalized, so bounded) element: 1 for an element without
 * children. Added to the depth of the path it is written at.
 */
export function elementDepth(element: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[element, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== "object" || item === null) continue;
    if (Array.isArray(item)) {
      for (const child of item) pending.push([child, depth]);
      continue;
    }
    const record = item as Record<string, unknown>;
    const level = typeof record.modelType === "string" && SUBMODEL_ELEMENTS.has(record.modelType) ? depth + 1 : depth;
    deepest = Math.max(deepest, level);
    for (const key of Object.keys(record)) if (typeof record[key] === "object") pending.push([record[key], level]);
  }
  return deepest;
}

/**
 * aas-core's base64 decoding throws a plain Error, instead of returning its error result, for a
 * value whose length is no multiple of 4 ("QQ" without its "=="), which became a 500 on every
 * path that takes a Blob. xs:base64Binary needs the padding, as `$value` already says
 * (value-only-apply.ts). A value with whitespace is left to jsonization, which names the character.
 */
function checkBlobValue(value: unknown, path: string): void {
  if (typeof value !== "string" || value.length % 4 === 0 || /\s/.test(value)) return;
  throw new AasError(
    "deserialization",
    `Invalid Blob value at ${path}: expected base64-encoded bytes (xs:base64Binary, padded with "=" to a multiple of 4 characters), got ${value.length} character${value.length === 1 ? "" : "s"}`,
    { path },
  );
}

function concreteClass(classRef: ClassRef, value: Record<string, unknown>): string | undefined {
  const concrete = ABSTRACT_CLASSES[classRef];
  if (concrete === undefined) return classRef;
  const modelType = value.modelType;
  return typeof modelType === "string" && concrete.includes(modelType) ? modelType : undefined;
}

function unknownProperty(key: string, path: string, className: string): AasError {
  // The key is the client's: a megabyte-long one must not come back twice as long (key and path).
  const shownKey = echoed(key);
  const shownPath = path.length > 200 ? `${path.slice(0, path.length - key.length)}${shownKey}` : path;
  return new AasError("unknown-property", `Unknown property "${shownKey}" in ${className} at ${shownPath}`, {
    path: shownPath,
  });
}
