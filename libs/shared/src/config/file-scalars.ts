import type { z } from "zod";
import { isPlainObject } from "../aas/plain-object.ts";
import { CONFIG_SECTIONS, schemaOfEntry } from "./config-sections.ts";
import { childOf, exactMatch, unwrapSchema } from "./schema-walk.ts";

/**
 * FA³ST reads its configuration with Jackson, which takes `"8080"` for a number and `"false"` for a
 * boolean: templated files (Helm, compose) write them so. A configuration file's string that stands
 * where a number or a boolean is expected is read the same way here, before validation; anything
 * else stays as written (a text setting such as `keyPrefix: "0042"` keeps its digits, and a string
 * that is no number, e.g. `"8080x"`, is still refused with the setting named).
 */
export function readFileScalars(raw: Record<string, unknown>): void {
  for (const [name, layout] of Object.entries(CONFIG_SECTIONS)) {
    if (!Object.hasOwn(raw, name)) continue;
    const value = raw[name];
    if (layout.shape === "plain") raw[name] = coerced(value, layout.schema);
    else if (layout.shape === "classed-list") {
      if (Array.isArray(value)) raw[name] = value.map((entry) => coerced(entry, schemaOfEntry(layout.section, entry)));
    } else raw[name] = coerced(value, schemaOfEntry(layout.section, value));
  }
}

function coerced(value: unknown, schema: z.ZodType | undefined): unknown {
  if (schema === undefined) return value;
  if (typeof value === "string") return scalarFor(value, schema) ?? value;
  if (Array.isArray(value)) {
    return value.map((item, index) => {
      const child = childOf(schema, index, exactMatch);
      return child.found ? coerced(item, child.schema) : item;
    });
  }
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const child = childOf(schema, key, exactMatch);
      out[key] = child.found ? coerced(item, child.schema) : item;
    }
    return out;
  }
  return value;
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** The boolean or number a string stands for where the schema takes one (not text), else undefined. */
function scalarFor(text: string, schema: z.ZodType): boolean | number | undefined {
  const types = leafTypes(schema);
  if (types.has("string") || types.has("enum") || types.has("literal")) return undefined;
  const trimmed = text.trim();
  const bool = types.has("boolean") ? booleanOfText(trimmed) : undefined;
  if (bool !== undefined) return bool;
  if (types.has("number") && NUMBER.test(trimmed)) return Number(trimmed);
  return undefined;
}

function leafTypes(schema: z.ZodType): Set<string> {
  const unwrapped = unwrapSchema(schema) as unknown as { _zod: { def: { type: string; options?: z.ZodType[] } } };
  const def = unwrapped._zod.def;
  if (def.type === "union") return new Set(def.options!.flatMap((option) => [...leafTypes(option)]));
  return new Set([def.type]);
}

/**
 * The boolean a setting's text stands for: true and false in any case, as FA³ST's Jackson reads
 * them ("True" is Python's str(True)); undefined for anything else. Files, environment variables
 * and overrides (overrides.ts) read booleans this one way.
 */
export function booleanOfText(text: string): boolean | undefined {
  const lower = text.trim().toLowerCase();
  return lower === "true" ? true : lower === "false" ? false : undefined;
}
