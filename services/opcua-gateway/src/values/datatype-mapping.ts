import { isValidLexical } from "@twinport/shared";
import { DataType, type StatusCode, StatusCodes, Variant, VariantArrayType } from "node-opcua";
import { bigIntToInt64, int64ToBigInt } from "./int64.ts";

/**
 * The datatype table of spec §4.5, both ways: an AAS lexical value of a `valueType` ↔ the OPC UA
 * Variant of the value node. Types without a counterpart (decimal, integer, date, time, the g*
 * types, duration, anyURI, the *Integer types, unknown ones) are Strings carrying the lexical form.
 */
const NATIVE: Readonly<Record<string, DataType>> = {
  "xs:boolean": DataType.Boolean,
  "xs:double": DataType.Double,
  "xs:float": DataType.Float,
  "xs:dateTime": DataType.DateTime,
  "xs:byte": DataType.SByte,
  "xs:short": DataType.Int16,
  "xs:int": DataType.Int32,
  "xs:long": DataType.Int64,
  "xs:unsignedByte": DataType.Byte,
  "xs:unsignedShort": DataType.UInt16,
  "xs:unsignedInt": DataType.UInt32,
  "xs:unsignedLong": DataType.UInt64,
  "xs:hexBinary": DataType.ByteString,
  "xs:base64Binary": DataType.ByteString,
};

const INTEGER_BOUNDS: Partial<Record<DataType, [number, number]>> = {
  [DataType.SByte]: [-128, 127],
  [DataType.Int16]: [-32768, 32767],
  [DataType.Int32]: [-2147483648, 2147483647],
  [DataType.Byte]: [0, 255],
  [DataType.UInt16]: [0, 65535],
  [DataType.UInt32]: [0, 4294967295],
};

export function opcuaDataTypeOf(valueType: unknown): DataType {
  return (typeof valueType === "string" && NATIVE[valueType]) || DataType.String;
}

/** A value node's content: the Variant, and Good unless the stored lexical form does not fit its type. */
export interface NodeValue {
  variant: Variant;
  statusCode: StatusCode;
}

const NULL_VARIANT = (): Variant => new Variant({ dataType: DataType.Null });

/** The Variant for a stored lexical value (absent → a null Variant). */
export function lexicalToNodeValue(lexical: string | undefined, valueType: unknown): NodeValue {
  if (lexical === undefined) return { variant: NULL_VARIANT(), statusCode: StatusCodes.Good };
  const dataType = opcuaDataTypeOf(valueType);
  const value = lexicalToValue(lexical, valueType, dataType);
  // Loaded without validation, a value may not parse as its type: show that instead of guessing.
  if (value === undefined) return { variant: NULL_VARIANT(), statusCode: StatusCodes.BadDataEncodingInvalid };
  // arrayType explicit: node-opcua cannot tell an Int64 ([high, low]) from an array on its own.
  return {
    variant: new Variant({ dataType, arrayType: VariantArrayType.Scalar, value }),
    statusCode: StatusCodes.Good,
  };
}

function lexicalToValue(lexical: string, valueType: unknown, dataType: DataType): unknown {
  switch (dataType) {
    case DataType.String:
      return lexical;
    case DataType.Boolean:
      if (lexical === "true" || lexical === "1") return true;
      if (lexical === "false" || lexical === "0") return false;
      return undefined;
    case DataType.Double:
    case DataType.Float: {
      const number = parseXsdFloat(lexical);
      if (number === undefined) return undefined;
      return dataType === DataType.Float ? Math.fround(number) : number;
    }
    case DataType.DateTime: {
      const date = parseXsdDateTime(lexical);
      return date === undefined ? undefined : clampToOpcUaDateTime(date);
    }
    case DataType.Int64:
    case DataType.UInt64: {
      if (!/^[+-]?[0-9]+$/.test(lexical)) return undefined;
      const big = BigInt(lexical);
      const signed = dataType === DataType.Int64;
      const [min, max] = signed ? [-(2n ** 63n), 2n ** 63n - 1n] : [0n, 2n ** 64n - 1n];
      return big < min || big > max ? undefined : bigIntToInt64(big);
    }
    case DataType.ByteString:
      if (!isValidLexical(lexical, valueType)) return undefined;
      return Buffer.from(lexical, valueType === "xs:hexBinary" ? "hex" : "base64");
    default: {
      const bounds = INTEGER_BOUNDS[dataType];
      if (!bounds || !/^[+-]?[0-9]+$/.test(lexical)) return undefined;
      const number = Number(lexical);
      return number < bounds[0] || number > bounds[1] ? undefined : number;
    }
  }
}

/** A written Variant as the AAS lexical value (null = clear the value), or why it cannot be one. */
export type LexicalOrError = { lexical: string | null } | { error: StatusCode; message: string };

export function variantToLexical(variant: Variant, valueType: unknown): LexicalOrError {
  const dataType = opcuaDataTypeOf(valueType);
  // Writing Null clears the value (spec §4.4: null means absent), as a $value PATCH with null does.
  if (variant.dataType === DataType.Null) return { lexical: null };
  if (variant.dataType !== dataType || variant.arrayType !== VariantArrayType.Scalar) {
    return {
      error: StatusCodes.BadTypeMismatch,
      message: `expected a scalar ${DataType[dataType]} for ${String(valueType)}, got ${describeVariant(variant)}`,
    };
  }
  const lexical = valueToLexical(variant.value, valueType, dataType);
  if (lexical === undefined)
    return {
      error: StatusCodes.BadOutOfRange,
      message: `${String(variant.value)} is not a valid ${String(valueType)} value`,
    };
  if (lexical === null) return { lexical };
  // The one check that decides (the same as the store's validation), e.g. xs:positiveInteger "0".
  if (dataType === DataType.String && isKnownXsd(valueType) && !isValidLexical(lexical, valueType)) {
    return { error: StatusCodes.BadOutOfRange, message: `"${lexical}" is not a valid ${valueType} value` };
  }
  return { lexical };
}

function valueToLexical(value: unknown, valueType: unknown, dataType: DataType): string | null | undefined {
  switch (dataType) {
    case DataType.String:
      if (value === null || value === undefined) return null;
      // An empty string for a typed value means "absent" (spec §4.4.5); xs:string keeps it.
      if (value === "" && valueType !== "xs:string" && isKnownXsd(valueType)) return null;
      return typeof value === "string" ? value : undefined;
    case DataType.Boolean:
      return typeof value === "boolean" ? String(value) : undefined;
    case DataType.Double:
      return typeof value === "number" ? formatXsdFloat(value, 17) : undefined;
    case DataType.Float:
      return typeof value === "number" ? formatXsdFloat(value, 9) : undefined;
    case DataType.DateTime:
      if (value === null || value === undefined) return null;
      if (!(value instanceof Date)) return undefined;
      // Part 6 §5.2.2.5: 0 (1601-01-01 and before) is the null DateTime; it clears, as a Null Variant does.
      return value.getTime() <= OPCUA_MIN_DATE_TIME_MS ? null : formatXsdDateTime(value);
    case DataType.Int64:
    case DataType.UInt64:
      if (!Array.isArray(value) || value.length !== 2) return undefined;
      return int64ToBigInt(value as [number, number], dataType === DataType.Int64).toString();
    case DataType.ByteString:
      if (value === null || value === undefined) return null;
      if (!Buffer.isBuffer(value)) return undefined;
      return valueType === "xs:hexBinary" ? value.toString("hex").toUpperCase() : value.toString("base64");
    default: {
      const bounds = INTEGER_BOUNDS[dataType];
      if (!bounds || typeof value !== "number" || !Number.isInteger(value) || value < bounds[0] || value > bounds[1])
        return undefined;
      return String(value);
    }
  }
}

function isKnownXsd(valueType: unknown): boolean {
  return typeof valueType === "string" && valueType.startsWith("xs:");
}

function parseXsdFloat(lexical: string): number | undefined {
  if (lexical === "INF" || lexical === "+INF") return Infinity;
  if (lexical === "-INF") return -Infinity;
  if (lexical === "NaN") return NaN;
  if (!/^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(lexical)) return undefined;
  return Number(lexical);
}

/**
 * The shortest decimal that reads back as the same number (Float values arrive widened from 32
 * bits, so 0.1f must not become "0.10000000149011612"); -0 is written as 0 (spec §4.5).
 */
function formatXsdFloat(value: number, maxDigits: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "INF";
  if (value === -Infinity) return "-INF";
  if (value === 0) return "0";
  const same =
    maxDigits === 9 ? (text: string) => Math.fround(Number(text)) === value : (text: string) => Number(text) === value;
  for (let digits = 1; digits < maxDigits; digits++) {
    const text = value.toPrecision(digits);
    if (same(text)) return plainNumber(text);
  }
  return plainNumber(value.toPrecision(maxDigits));
}

// toPrecision answers 100 as "1e+2" and pads ("1.50e+3"); JavaScript's own number form of the same
// digits is what a $value PATCH of that number stores: "100", "1500", and "1e+21" only where
// JSON itself would write an exponent.
function plainNumber(text: string): string {
  return String(Number(text));
}

const XSD_DATE_TIME =
  /^(-?[0-9]{4,})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?$/;

/** xs:dateTime → Date in UTC; a value without a time zone is taken as UTC (spec §4.5: the offset is lost). */
export function parseXsdDateTime(lexical: string): Date | undefined {
  const match = XSD_DATE_TIME.exec(lexical);
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  // Whole milliseconds (a JavaScript Date's resolution), cut, not rounded: rounding made
  // 23:59:59.9999999 on 31 December the first instant of the next year.
  const millis = fraction ? Number(fraction.slice(1, 4).padEnd(3, "0")) : 0;
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second), millis);
  if (zone && zone !== "Z") {
    const sign = zone[0] === "-" ? -1 : 1;
    date.setTime(date.getTime() - sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000);
  }
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** 1601-01-01T00:00:00Z, OPC UA's DateTime 0; and the latest instant before its "maximum" value. */
const OPCUA_MIN_DATE_TIME_MS = Date.UTC(1601, 0, 1);
const OPCUA_MAX_DATE_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

/**
 * OPC UA Part 6 §5.2.2.5: a DateTime at or before 1601-01-01 is encoded as 0, one at or after
 * 9999-12-31 23:59:59 as the largest. node-opcua writes any Date as signed ticks, which clients read
 * as a date tens of thousands of years away (an xs:dateTime of year 1500 came out as year 59955).
 */
function clampToOpcUaDateTime(date: Date): Date {
  const time = date.getTime();
  if (time < OPCUA_MIN_DATE_TIME_MS) return new Date(OPCUA_MIN_DATE_TIME_MS);
  if (time > OPCUA_MAX_DATE_TIME_MS) return new Date(OPCUA_MAX_DATE_TIME_MS);
  return date;
}

function formatXsdDateTime(date: Date): string | undefined {
  const time = date.getTime();
  // Years 1..9999 only: toISOString writes others in an extended form xs:dateTime does not have.
  if (Number.isNaN(time) || date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) return undefined;
  return date.toISOString().replace(".000Z", "Z");
}

export function describeVariant(variant: Variant): string {
  const shape = variant.arrayType === VariantArrayType.Scalar ? "scalar" : "array of";
  return `${shape} ${DataType[variant.dataType]}`;
}
