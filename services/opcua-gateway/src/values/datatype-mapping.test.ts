import assert from "node:assert/strict";
import { test } from "node:test";
import { DataType, StatusCodes, Variant, VariantArrayType } from "node-opcua";
import { lexicalToNodeValue, opcuaDataTypeOf, parseXsdDateTime, variantToLexical } from "./datatype-mapping.ts";
import { bigIntToInt64, int64ToBigInt } from "./int64.ts";

const scalar = (dataType: DataType, value: unknown) =>
  new Variant({ dataType, arrayType: VariantArrayType.Scalar, value });

test("types without an OPC UA counterpart are Strings; unknown ones too", () => {
  for (const xsd of [
    "xs:decimal",
    "xs:integer",
    "xs:date",
    "xs:time",
    "xs:gMonthDay",
    "xs:duration",
    "xs:anyURI",
    "xs:negativeInteger",
    "xs:whatever",
    undefined,
  ]) {
    assert.equal(opcuaDataTypeOf(xsd), DataType.String, String(xsd));
  }
});

test("xs:dateTime is converted to UTC; without a zone it is taken as UTC", () => {
  assert.equal(parseXsdDateTime("2024-01-02T03:04:05+02:00")?.toISOString(), "2024-01-02T01:04:05.000Z");
  assert.equal(parseXsdDateTime("2024-01-02T03:04:05.25-01:30")?.toISOString(), "2024-01-02T04:34:05.250Z");
  assert.equal(parseXsdDateTime("2024-01-02T03:04:05")?.toISOString(), "2024-01-02T03:04:05.000Z");
  assert.equal(parseXsdDateTime("2024-01-02"), undefined);
  // Finer than a millisecond (OPC UA's DateTime has 100 ns, a Date 1 ms): cut, never into the next instant.
  assert.equal(parseXsdDateTime("2024-12-31T23:59:59.9999999Z")?.toISOString(), "2024-12-31T23:59:59.999Z");
  assert.equal(parseXsdDateTime("2024-01-02T03:04:05.0005Z")?.toISOString(), "2024-01-02T03:04:05.000Z");
  assert.equal(parseXsdDateTime("2024-01-02T03:04:05.5Z")?.toISOString(), "2024-01-02T03:04:05.500Z");
  assert.deepEqual(variantToLexical(scalar(DataType.DateTime, new Date("2024-05-06T07:08:09.123Z")), "xs:dateTime"), {
    lexical: "2024-05-06T07:08:09.123Z",
  });
});

test("xs:dateTime outside OPC UA's DateTime range reads as its bounds (Part 6); a null or 1601 DateTime written clears", () => {
  const read = (lexical: string) => (lexicalToNodeValue(lexical, "xs:dateTime").variant.value as Date).toISOString();
  assert.equal(read("1500-01-01T00:00:00Z"), "1601-01-01T00:00:00.000Z");
  assert.equal(read("0001-01-01T00:00:00Z"), "1601-01-01T00:00:00.000Z");
  assert.equal(read("-0044-03-15T12:00:00Z"), "1601-01-01T00:00:00.000Z");
  assert.equal(read("12024-01-01T00:00:00Z"), "9999-12-31T23:59:59.000Z");
  assert.equal(read("1601-01-01T00:00:00.001Z"), "1601-01-01T00:00:00.001Z");
  assert.equal(read("9999-12-31T23:59:58Z"), "9999-12-31T23:59:58.000Z");
  // What a client's null DateTime arrives as: a null value, or the Date of ticks 0.
  assert.deepEqual(variantToLexical(scalar(DataType.DateTime, null), "xs:dateTime"), { lexical: null });
  assert.deepEqual(variantToLexical(scalar(DataType.DateTime, new Date(Date.UTC(1601, 0, 1))), "xs:dateTime"), {
    lexical: null,
  });
  assert.deepEqual(variantToLexical(scalar(DataType.DateTime, new Date("1601-01-01T00:00:01Z")), "xs:dateTime"), {
    lexical: "1601-01-01T00:00:01Z",
  });
});

test("floats and doubles are written in their shortest exact form; INF and NaN keep their xsd names; -0 is 0", () => {
  assert.deepEqual(variantToLexical(scalar(DataType.Float, Math.fround(0.1)), "xs:float"), { lexical: "0.1" });
  assert.deepEqual(variantToLexical(scalar(DataType.Double, 0.1 + 0.2), "xs:double"), {
    lexical: "0.30000000000000004",
  });
  assert.deepEqual(variantToLexical(scalar(DataType.Double, 1e21), "xs:double"), { lexical: "1e+21" });
  // Round numbers as a $value PATCH stores them, not toPrecision's "1e+2".
  for (const [value, lexical] of [
    [100, "100"],
    [2500, "2500"],
    [-30, "-30"],
    [1200000, "1200000"],
    [0.000001, "0.000001"],
    [1.5e-7, "1.5e-7"],
  ] as const) {
    assert.deepEqual(variantToLexical(scalar(DataType.Double, value), "xs:double"), { lexical }, String(value));
    assert.deepEqual(
      variantToLexical(scalar(DataType.Float, Math.fround(value)), "xs:float"),
      { lexical },
      `${value}f`,
    );
  }
  assert.deepEqual(variantToLexical(scalar(DataType.Double, -Infinity), "xs:double"), { lexical: "-INF" });
  assert.deepEqual(variantToLexical(scalar(DataType.Double, NaN), "xs:double"), { lexical: "NaN" });
  assert.deepEqual(variantToLexical(scalar(DataType.Double, -0), "xs:double"), { lexical: "0" });
  assert.equal(lexicalToNodeValue("INF", "xs:double").variant.value, Infinity);
  assert.equal(lexicalToNodeValue("-1.5E2", "xs:float").variant.value, -150);
});

test("64-bit integers keep every digit", () => {
  for (const value of [0n, 1n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 9007199254740993n]) {
    assert.equal(int64ToBigInt(bigIntToInt64(value), true), value);
  }
  assert.equal(int64ToBigInt(bigIntToInt64(2n ** 64n - 1n), false), 2n ** 64n - 1n);
  assert.deepEqual(
    lexicalToNodeValue("18446744073709551615", "xs:unsignedLong").variant.value,
    [0xffffffff, 0xffffffff],
  );
  // Out of the type's range in the store (loaded without validation): shown as such, not wrapped.
  assert.equal(
    lexicalToNodeValue("18446744073709551616", "xs:unsignedLong").statusCode,
    StatusCodes.BadDataEncodingInvalid,
  );
  assert.equal(lexicalToNodeValue("128", "xs:byte").statusCode, StatusCodes.BadDataEncodingInvalid);
});

test("a written value must have the node's data type, be a scalar and fit the xsd type", () => {
  assert.equal(
    (variantToLexical(scalar(DataType.Int32, 5), "xs:short") as { error: unknown }).error,
    StatusCodes.BadTypeMismatch,
  );
  assert.equal(
    (
      variantToLexical(
        new Variant({ dataType: DataType.Double, arrayType: VariantArrayType.Array, value: [1] }),
        "xs:double",
      ) as { error: unknown }
    ).error,
    StatusCodes.BadTypeMismatch,
  );
  assert.equal(
    (variantToLexical(scalar(DataType.String, "-1"), "xs:nonNegativeInteger") as { error: unknown }).error,
    StatusCodes.BadOutOfRange,
  );
  assert.deepEqual(variantToLexical(scalar(DataType.String, ""), "xs:decimal"), { lexical: null });
  assert.deepEqual(variantToLexical(scalar(DataType.String, ""), "xs:string"), { lexical: "" });
  assert.deepEqual(variantToLexical(scalar(DataType.ByteString, Buffer.from([0xde, 0xad])), "xs:hexBinary"), {
    lexical: "DEAD",
  });
  assert.deepEqual(variantToLexical(new Variant({ dataType: DataType.Null }), "xs:int"), { lexical: null });
});
