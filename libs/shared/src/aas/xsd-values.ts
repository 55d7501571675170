import { isLosslessNumber, LosslessNumber } from "lossless-json";
import * as aas from "./aas-core.cts";
import { isBase64BinaryLexical, isHexBinaryLexical } from "./binary-lexical.ts";
import { canonicalLexical } from "./canonical-lexical.ts";
import { guardedCheck } from "./verification-guard.ts";

/**
 * Lexical values typed by a `valueType` (DataTypeDefXsd) and their ValueOnly JSON form
 * (API v3.0.1 table "valueType → JSON type"). The model keeps the lexical string; ValueOnly shows
 * booleans and numbers natively. Numbers are never routed through `Number()`: xs:decimal and
 * xs:long carry more digits than a double holds, so a number is a lossless-json `LosslessNumber`
 * built from the lexical digits.
 */

export type ValueJsonKind = "boolean" | "number" | "string";

const NUMBER_TYPES = new Set([
  "xs:decimal",
  "xs:integer",
  "xs:double",
  "xs:float",
  "xs:byte",
  "xs:short",
  "xs:int",
  "xs:long",
  "xs:unsignedByte",
  "xs:unsignedShort",
  "xs:unsignedInt",
  "xs:unsignedLong",
  "xs:positiveInteger",
  "xs:nonNegativeInteger",
  "xs:negativeInteger",
  "xs:nonPositiveInteger",
]);

/** The JSON type of a value of this valueType in ValueOnly (unknown types count as strings). */
export function valueJsonKind(valueType: unknown): ValueJsonKind {
  if (valueType === "xs:boolean") return "boolean";
  if (typeof valueType === "string" && NUMBER_TYPES.has(valueType)) return "number";
  return "string";
}

/** The aas-core enum literal for a JSON valueType string, or undefined when it is not one. */
export function dataTypeDefXsd(valueType: unknown): aas.types.DataTypeDefXsd | undefined {
  if (typeof valueType !== "string") return undefined;
  return aas.stringification.dataTypeDefXsdFromString(valueType) ?? undefined;
}

/** Whether `lexical` is a valid value of `valueType` (aas-core's own check, as verification uses). */
export function isValidLexical(lexical: string, valueType: unknown): boolean {
  const type = dataTypeDefXsd(valueType);
  // Binary values may be megabytes long; aas-core's expressions for them overflow the stack there.
  if (type === aas.types.DataTypeDefXsd.Base64Binary) return isBase64BinaryLexical(lexical);
  if (type === aas.types.DataTypeDefXsd.HexBinary) return isHexBinaryLexical(lexical);
  return (
    type !== undefined &&
    guardedCheck(`A ${String(valueType)} value`, () => aas.verification.valueConsistentWithXsdType(lexical, type))
  );
}

// XSD decimal/integer/double lexical forms without INF/NaN: sign, digits, fraction, exponent.
const XSD_NUMBER = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:([eE][+-]?[0-9]+))?$/;

/**
 * The JSON number token for an XSD numeric lexical form, or undefined when JSON cannot write it
 * (INF, NaN, garbage). "+5" → "5", ".5" → "0.5", "007" → "7", "1." → "1"; every digit the
 * lexical form had is kept otherwise ("0.40" stays "0.40").
 */
export function jsonNumberToken(lexical: string): string | undefined {
  const match = XSD_NUMBER.exec(lexical);
  if (match === null) return undefined;
  const [, sign, integerDigits, fraction, exponent] = match;
  if (integerDigits === "" && (fraction === undefined || fraction === "")) return undefined;
  const integer = integerDigits.replace(/^0+(?=[0-9])/, "") || "0";
  const fractionPart = fraction ? `.${fraction}` : "";
  return `${sign === "-" ? "-" : ""}${integer}${fractionPart}${exponent ?? ""}`;
}

/** The ValueOnly JSON of a stored lexical value: boolean, LosslessNumber, or the string itself. */
export function lexicalToValueJson(lexical: string, valueType: unknown): unknown {
  switch (valueJsonKind(valueType)) {
    case "boolean":
      if (lexical === "true" || lexical === "1") return true;
      if (lexical === "false" || lexical === "0") return false;
      return lexical;
    case "number": {
      const token = jsonNumberToken(lexical);
      return token === undefined ? lexical : new LosslessNumber(token);
    }
    default:
      return lexical;
  }
}

/**
 * The lexical string for a ValueOnly JSON value written to an element of `valueType`, or
 * undefined when the value does not fit. Numbers keep their digits (a LosslessNumber's text);
 * a string is accepted for number and boolean types too when it is a valid lexical form, since
 * that is how INF and NaN travel (JSON has no number for them). A string in one of the spellings
 * the full form takes ("TRUE", "1." for an xs:decimal, a space in an xs:dateTime; canonical-lexical.ts)
 * is taken as its canonical form, so `$value` and the full element accept the same values.
 */
export function valueJsonToLexical(value: unknown, valueType: unknown): string | undefined {
  const kind = valueJsonKind(valueType);
  let lexical: string;
  if (typeof value === "string") lexical = canonicalLexical(value, valueType);
  else if (kind === "boolean" && typeof value === "boolean") lexical = value ? "true" : "false";
  else if (kind === "number" && isLosslessNumber(value)) lexical = value.value;
  else if (kind === "number" && typeof value === "number" && Number.isFinite(value)) lexical = String(value);
  else return undefined;
  return isValidLexical(lexical, valueType) ? lexical : undefined;
}
