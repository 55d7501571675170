import { applyValueOnly, type ElementJson, parseJsonLossless, stringifyLossless, toValueOnly } from "@twinport/shared";
import { isLosslessNumber } from "lossless-json";

/**
 * Between values as assets send them (JSON, parsed with lossless numbers) and AAS elements.
 * A Property's model value is its lexical string; ValueOnly accepts that string for every value
 * type (the engine checks it against the valueType), so a Property travels as a JSON string and
 * no number is ever rounded on the way.
 */

export class AssetValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AssetValueError";
  }
}

/** The text of a scalar, the way FA³ST turns a query result into text (strings without quotes). */
export function scalarText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (isLosslessNumber(value)) return value.value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  return undefined;
}

/** The ValueOnly body (JSON text) that gives `element` the value an asset sent. */
export function valueOnlyBodyFromJson(element: ElementJson, value: unknown): string {
  if (element.modelType === "Property") {
    if (value === null) return "null";
    const text = scalarText(value);
    if (text === undefined)
      throw new AssetValueError(`the asset sent ${describe(value)} for a Property; it needs a single value`);
    return JSON.stringify(text);
  }
  if (value === undefined) throw new AssetValueError("the asset sent no value");
  return stringifyLossless(value);
}

/** The ValueOnly body for a Property from a lexical text (OPC UA values arrive as text). */
export function propertyBody(lexical: string | null): string {
  return lexical === null ? "null" : JSON.stringify(lexical);
}

/** Whether the element already holds what the ValueOnly body would give it (then no write, no event). */
export function holdsValue(element: ElementJson, body: string): boolean {
  const wanted = parseJsonLossless(body);
  if (element.modelType === "Property") {
    const current = typeof element.value === "string" ? element.value : null;
    return wanted === null ? current === null : scalarText(wanted) === current;
  }
  const current = toValueOnly(element);
  return current !== undefined && stringifyLossless(current) === stringifyLossless(wanted);
}

/**
 * The element's value as ValueOnly JSON text, for payload templates: strings quoted and escaped,
 * numbers and booleans bare (FA³ST's `${value}`), `null` for a Property without a value.
 */
export function valueOnlyJson(element: ElementJson): string {
  const value = toValueOnly(element);
  return stringifyLossless(value === undefined ? null : value);
}

/** The lexical value of a Property (what asset writes send), or null when it has none. */
export function propertyLexical(element: ElementJson): string | null {
  if (element.modelType !== "Property")
    throw new AssetValueError(
      `only Property values can be written to an asset (this element is a ${String(element.modelType)})`,
    );
  return typeof element.value === "string" ? element.value : null;
}

/** A copy of a declared operation variable holding the value the asset answered. */
export function withAssetValue(declared: ElementJson, value: unknown): ElementJson {
  const body = parseJsonLossless(valueOnlyBodyFromJson(declared, value));
  try {
    return applyValueOnly(declared, body, { verify: false });
  } catch (error) {
    throw new AssetValueError(
      `the asset's value for ${String(declared.idShort)} does not fit: ${(error as Error).message}`,
    );
  }
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value === undefined) return "nothing";
  return typeof value === "object" ? "an object" : typeof value;
}
