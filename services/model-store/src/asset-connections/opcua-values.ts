import { isoDurationToMs } from "@twinport/shared";
import { DataType, type Variant, VariantArrayType } from "node-opcua-client";
import { AssetError } from "./asset-connection-types.ts";

/**
 * Between OPC UA values and AAS Property values (lexical strings typed by `valueType`), as FA³ST
 * converts them (docs/reference/faaast-asset-connections.md §4.4): implicit conversions, with xs:duration as a
 * Double number of milliseconds, xs:hexBinary/xs:base64Binary from ByteStrings, xs:dateTime as
 * DateTime. Int64/UInt64 travel as node-opcua's [high, low] pairs and are converted through BigInt,
 * so no digit is lost.
 */

const TWO_64 = 2n ** 64n;

function int64Text(value: unknown, signed: boolean): string {
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  const [high, low] = value as [number, number];
  let big = (BigInt(high >>> 0) << 32n) + BigInt(low >>> 0);
  if (signed && big >= TWO_64 / 2n) big -= TWO_64;
  return big.toString();
}

function int64Pair(text: string): [number, number] {
  let big = BigInt(text);
  if (big < 0n) big += TWO_64;
  return [Number(big >> 32n), Number(big & 0xffffffffn)];
}

function numberText(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "INF";
  if (value === Number.NEGATIVE_INFINITY) return "-INF";
  return String(value);
}

function durationText(ms: number): string {
  const sign = ms < 0 ? "-" : "";
  return `${sign}PT${Math.abs(ms) / 1000}S`;
}

/** The AAS lexical value of one OPC UA scalar, for a Property of `valueType` (null: no value). */
export function lexicalFromOpcua(value: unknown, dataType: DataType, valueType: string): string | null {
  if (value === null || value === undefined) return null;
  if (dataType === DataType.Int64 || dataType === DataType.UInt64) return int64Text(value, dataType === DataType.Int64);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (valueType === "xs:duration") return durationText(value);
    if (valueType === "xs:boolean") return value !== 0 ? "true" : "false";
    return numberText(value);
  }
  if (value instanceof Date) return valueType === "xs:date" ? value.toISOString().slice(0, 10) : value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString(valueType === "xs:hexBinary" ? "hex" : "base64");
  if (typeof value === "string") return value;
  if (typeof value === "object") {
    const record = value as { text?: unknown; name?: unknown; toString(): string };
    if (dataType === DataType.LocalizedText)
      return record.text === null || record.text === undefined ? null : String(record.text);
    if (dataType === DataType.QualifiedName) return String(record.name ?? "");
    if (dataType === DataType.NodeId || dataType === DataType.ExpandedNodeId || dataType === DataType.Guid)
      return record.toString();
  }
  throw new AssetError(`an OPC UA ${DataType[dataType] ?? dataType} value cannot be a Property value`, {
    retryable: false,
  });
}

/** The OPC UA value (for a Variant of `dataType`) of an AAS lexical value. */
export function opcuaFromLexical(lexical: string | null, dataType: DataType, valueType: string): unknown {
  if (lexical === null) return null;
  const number = () => {
    const ms =
      valueType === "xs:duration"
        ? isoDurationToMs(lexical)
        : lexical === "INF"
          ? Infinity
          : lexical === "-INF"
            ? -Infinity
            : Number(lexical);
    if (Number.isNaN(ms) && lexical !== "NaN")
      throw new AssetError(`"${lexical}" is not a number for an OPC UA ${DataType[dataType]}`, { retryable: false });
    return ms;
  };
  switch (dataType) {
    case DataType.Boolean:
      return lexical === "true" || lexical === "1";
    case DataType.SByte:
    case DataType.Byte:
    case DataType.Int16:
    case DataType.UInt16:
    case DataType.Int32:
    case DataType.UInt32:
    case DataType.Float:
    case DataType.Double:
      if (valueType === "xs:boolean") return lexical === "true" || lexical === "1" ? 1 : 0;
      return number();
    case DataType.Int64:
    case DataType.UInt64:
      return int64Pair(lexical);
    case DataType.DateTime:
      return new Date(lexical);
    case DataType.ByteString:
      return Buffer.from(lexical, valueType === "xs:hexBinary" ? "hex" : "base64");
    case DataType.LocalizedText:
      return { text: lexical };
    case DataType.String:
    case DataType.XmlElement:
      return lexical;
    default:
      throw new AssetError(`Property values cannot be written to an OPC UA ${DataType[dataType] ?? dataType} node`, {
        retryable: false,
      });
  }
}

/** Abstract numeric DataTypes as FA³ST writes them (Integer → Int32, UInteger → UInt32, Number → Double). */
export function concreteDataType(dataTypeId: number): DataType | undefined {
  if (dataTypeId >= 1 && dataTypeId <= 25) return dataTypeId as DataType;
  if (dataTypeId === 26) return DataType.Double;
  if (dataTypeId === 27) return DataType.Int32;
  if (dataTypeId === 28) return DataType.UInt32;
  // Enumerations (29 and its subtypes are in other namespaces or higher ids) travel as Int32.
  if (dataTypeId === 29) return DataType.Int32;
  return undefined;
}

/** "[1][0]" → [1, 0]. */
export function parseArrayIndex(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  return [...text.matchAll(/\[(\d+)\]/g)].map((match) => Number(match[1]));
}

/** Position in the flat value array of a (possibly multi-dimensional) index. */
function flatOffset(variant: Variant, index: number[]): number {
  const dimensions =
    variant.arrayType === VariantArrayType.Matrix
      ? (variant.dimensions ?? [])
      : [(variant.value as ArrayLike<unknown>)?.length ?? 0];
  if (index.length > dimensions.length)
    throw new AssetError(`arrayIndex has ${index.length} dimensions, the node's value ${dimensions.length}`, {
      retryable: false,
    });
  let offset = 0;
  index.forEach((position, i) => {
    if (position >= dimensions[i]!)
      throw new AssetError(`arrayIndex ${position} is outside the node's array (length ${dimensions[i]})`, {
        retryable: false,
      });
    offset = offset * dimensions[i]! + position;
  });
  return offset;
}

/** The scalar a Variant holds, or its element at `index`. */
export function scalarOf(variant: Variant, index: number[] | undefined): unknown {
  if (!index) {
    if (variant.arrayType !== VariantArrayType.Scalar)
      throw new AssetError("the node holds an array: set arrayIndex to pick one element", { retryable: false });
    return variant.value;
  }
  if (variant.arrayType === VariantArrayType.Scalar)
    throw new AssetError("arrayIndex is set but the node holds a single value", { retryable: false });
  return (variant.value as ArrayLike<unknown>)[flatOffset(variant, index)];
}

/** The array with one element replaced (FA³ST writes the whole array back). */
export function withElement(variant: Variant, index: number[], value: unknown): unknown {
  const copy = Array.from(variant.value as ArrayLike<unknown>);
  copy[flatOffset(variant, index)] = value;
  const TypedArray = ArrayBuffer.isView(variant.value)
    ? (variant.value as unknown as { constructor: new (items: unknown[]) => unknown }).constructor
    : undefined;
  return TypedArray ? new TypedArray(copy) : copy;
}
