import type { z } from "zod";

/**
 * Just enough zod introspection to follow a settings path through a schema: for "Allowed: ..."
 * in error messages and to resolve override paths (env segments match keys case-insensitively).
 */
interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  values?: unknown[];
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** Strips wrappers that do not change what a value looks like (optional, default, transforms, ...). */
export function unwrapSchema(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    switch (def.type) {
      case "optional":
      case "nullable":
      case "default":
      case "prefault":
      case "readonly":
      case "catch":
      case "nonoptional":
        current = def.innerType!;
        break;
      case "pipe":
        // z.preprocess puts the transform first; .transform() puts it last.
        current = defOf(def.in!).type === "transform" ? def.out! : def.in!;
        break;
      default:
        return current;
    }
  }
}

export function schemaType(schema: z.ZodType): string {
  return defOf(unwrapSchema(schema)).type;
}

/** Keys of an object schema (after unwrapping), or undefined when it is not an object. */
export function objectKeys(schema: z.ZodType): string[] | undefined {
  const def = defOf(unwrapSchema(schema));
  if (def.type === "object") return Object.keys(def.shape!);
  // validationOnLoad: boolean | {...}; the object variant's keys.
  if (def.type === "union") {
    const objectOption = def.options!.find((option) => schemaType(option) === "object");
    return objectOption ? objectKeys(objectOption) : undefined;
  }
  return undefined;
}

/** An object schema that keeps unknown keys (z.looseObject): any key may be set. */
export function isOpenObject(schema: z.ZodType): boolean {
  const def = defOf(unwrapSchema(schema));
  return def.type === "object" && def.catchall !== undefined && defOf(def.catchall).type !== "never";
}

export type ChildLookup =
  | { found: true; key: string | number; schema: z.ZodType | undefined }
  | { found: false; allowed?: string[]; reason: string };

/**
 * The child schema for one path segment. `match` picks the key among known ones (exact for the
 * file and the CLI, case-insensitive for environment variables).
 */
export function childOf(
  schema: z.ZodType,
  segment: string | number,
  match: (keys: string[], segment: string) => string | undefined,
): ChildLookup {
  const unwrapped = unwrapSchema(schema);
  const def = defOf(unwrapped);
  switch (def.type) {
    case "object": {
      const keys = Object.keys(def.shape!);
      const key = match(keys, String(segment));
      if (key !== undefined) return { found: true, key, schema: def.shape![key] };
      if (isOpenObject(unwrapped)) return { found: true, key: String(segment), schema: undefined };
      return { found: false, allowed: keys, reason: "unknown key" };
    }
    case "record":
      return { found: true, key: String(segment), schema: def.valueType };
    case "array": {
      const index = typeof segment === "number" ? segment : /^\d+$/.test(segment) ? Number(segment) : undefined;
      if (index === undefined) return { found: false, reason: "a list takes an index" };
      return { found: true, key: index, schema: def.element };
    }
    case "union": {
      // validationOnLoad: boolean | {...}; descend into the object variant.
      const objectOption = def.options!.find((option) => schemaType(option) === "object");
      if (objectOption) return childOf(objectOption, segment, match);
      return { found: false, reason: "a single value" };
    }
    default:
      return { found: false, reason: `a single value (${def.type})` };
  }
}

export const exactMatch = (keys: string[], segment: string): string | undefined =>
  keys.includes(segment) ? segment : undefined;

/** Environment variables are upper case and cannot carry "@": TWINPORT_ENDPOINTS_0_CLASS names @class. */
export const looseMatch = (keys: string[], segment: string): string | undefined => {
  const wanted = segment.toLowerCase().replace(/^@/, "");
  return keys.find((key) => key.toLowerCase().replace(/^@/, "") === wanted);
};

/** The schema at `path` below `schema` (undefined where the path leaves what the schema describes). */
export function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  for (const segment of path) {
    if (!current) return undefined;
    const child = childOf(current, typeof segment === "symbol" ? String(segment) : segment, exactMatch);
    current = child.found ? child.schema : undefined;
  }
  return current;
}

/** The object options of a union of objects (rule subjects and objects), else undefined. */
export function objectOptions(schema: z.ZodType): z.ZodType[] | undefined {
  const def = defOf(unwrapSchema(schema));
  if (def.type !== "union") return undefined;
  const options = def.options!.filter((option) => schemaType(option) === "object");
  return options.length > 1 && options.length === def.options!.length ? options : undefined;
}

/**
 * Keys allowed at `path` below `schema`, for "Allowed: ..." (undefined when not an object). In a
 * union of objects, the option that knows the most of `known` (the keys of the value that are not
 * in question): `{"shells": …, "idShortPath": …}` is a `shells` object with one key too many.
 */
export function allowedKeysAt(
  schema: z.ZodType,
  path: readonly PropertyKey[],
  known: readonly string[] = [],
): string[] | undefined {
  const current = schemaAt(schema, path);
  if (!current) return undefined;
  const options = objectOptions(current);
  if (!options) return objectKeys(current);
  let best: string[] | undefined;
  let bestCount = -1;
  for (const option of options) {
    const keys = objectKeys(option) ?? [];
    const count = known.filter((key) => keys.includes(key)).length;
    if (count > bestCount) [best, bestCount] = [keys, count];
  }
  return best;
}

/** A union of objects in words: `{all} or {shells} or {submodels[, idShortPath]}`… (optional keys in brackets). */
export function describeObjectOptions(options: z.ZodType[]): string {
  return options
    .map((option) => {
      const shape = defOf(unwrapSchema(option)).shape ?? {};
      const keys = Object.entries(shape).map(([key, child]) => (defOf(child).type === "optional" ? `[${key}]` : key));
      return `{${keys.join(", ")}}`;
    })
    .join(" or ");
}

/** True when the setting only takes text, so an override value is used as written ("123" stays a string). */
export function takesOnlyText(schema: z.ZodType): boolean {
  const def = defOf(unwrapSchema(schema));
  return (
    def.type === "string" ||
    def.type === "enum" ||
    (def.type === "literal" && def.values!.every((v) => typeof v === "string"))
  );
}

/** True for lists of text (profiles, supportedSecurityPolicies): `A,B` is accepted for `["A","B"]`. */
export function takesTextList(schema: z.ZodType): boolean {
  const def = defOf(unwrapSchema(schema));
  return def.type === "array" && takesOnlyText(def.element!);
}
