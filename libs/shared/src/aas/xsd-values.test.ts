import assert from "node:assert/strict";
import { test } from "node:test";
import { isLosslessNumber, LosslessNumber } from "lossless-json";
import { jsonNumberToken, lexicalToValueJson, valueJsonKind, valueJsonToLexical } from "./xsd-values.ts";

test("maps valueTypes to their ValueOnly JSON type", () => {
  assert.equal(valueJsonKind("xs:boolean"), "boolean");
  for (const type of [
    "xs:decimal",
    "xs:integer",
    "xs:double",
    "xs:float",
    "xs:byte",
    "xs:long",
    "xs:unsignedLong",
    "xs:negativeInteger",
  ]) {
    assert.equal(valueJsonKind(type), "number", type);
  }
  for (const type of [
    "xs:string",
    "xs:date",
    "xs:dateTime",
    "xs:duration",
    "xs:anyURI",
    "xs:base64Binary",
    "xs:gDay",
    undefined,
  ]) {
    assert.equal(valueJsonKind(type), "string", String(type));
  }
});

test("writes XSD numbers as JSON number tokens without changing their digits", () => {
  const cases: [string, string | undefined][] = [
    ["5000", "5000"],
    ["+5", "5"],
    [".5", "0.5"],
    ["-.5", "-0.5"],
    ["+.5", "0.5"],
    ["007", "7"],
    ["-007.50", "-7.50"],
    ["0.40", "0.40"],
    ["1.", "1"],
    ["1.E5", "1E5"],
    ["-0", "-0"],
    ["1.5e-3", "1.5e-3"],
    ["12345678901234567890.123456789", "12345678901234567890.123456789"],
    ["INF", undefined],
    ["-INF", undefined],
    ["NaN", undefined],
    ["", undefined],
    [".", undefined],
    ["1e", undefined],
    ["abc", undefined],
  ];
  for (const [lexical, token] of cases) assert.equal(jsonNumberToken(lexical), token, lexical);
});

test("turns stored lexical values into ValueOnly JSON", () => {
  const long = lexicalToValueJson("9223372036854775807", "xs:long");
  assert.ok(isLosslessNumber(long) && long.value === "9223372036854775807");
  assert.equal(lexicalToValueJson("1", "xs:boolean"), true);
  assert.equal(lexicalToValueJson("0", "xs:boolean"), false);
  assert.equal(lexicalToValueJson("true", "xs:boolean"), true);
  assert.equal(lexicalToValueJson("INF", "xs:double"), "INF");
  assert.equal(lexicalToValueJson("2024-02-29", "xs:date"), "2024-02-29");
  assert.equal(lexicalToValueJson("42", "xs:string"), "42");
});

test("turns ValueOnly JSON into lexical values valid for the valueType, or refuses", () => {
  assert.equal(
    valueJsonToLexical(new LosslessNumber("12345678901234567890.123456789"), "xs:decimal"),
    "12345678901234567890.123456789",
  );
  assert.equal(valueJsonToLexical(new LosslessNumber("5"), "xs:int"), "5");
  assert.equal(valueJsonToLexical(5, "xs:int"), "5");
  assert.equal(valueJsonToLexical(true, "xs:boolean"), "true");
  assert.equal(valueJsonToLexical("INF", "xs:double"), "INF", "strings carry what JSON numbers cannot");
  assert.equal(valueJsonToLexical("abc", "xs:string"), "abc");
  // The spellings the full form accepts, in their canonical form (canonical-lexical.ts, ADR 0031).
  assert.equal(valueJsonToLexical("TRUE", "xs:boolean"), "true");
  assert.equal(valueJsonToLexical("1.", "xs:decimal"), "1");
  assert.equal(valueJsonToLexical("2024-02-29 12:00:00Z", "xs:dateTime"), "2024-02-29T12:00:00Z");
  assert.equal(valueJsonToLexical(" 5 ", "xs:int"), undefined, "whitespace is not trimmed");
  assert.equal(valueJsonToLexical("TRUE", "xs:string"), "TRUE");
  for (const [value, type] of [
    ["abc", "xs:int"],
    [new LosslessNumber("300"), "xs:byte"],
    [new LosslessNumber("5.5"), "xs:int"],
    [new LosslessNumber("1e3"), "xs:decimal"],
    [new LosslessNumber("18446744073709551616"), "xs:unsignedLong"],
    [new LosslessNumber("-1"), "xs:unsignedInt"],
    [true, "xs:int"],
    [1, "xs:boolean"],
    [5, "xs:string"],
    [{}, "xs:string"],
    [null, "xs:int"],
    ["2024-02-30", "xs:date"],
    ["x", "xs:nonsense"],
  ] as [unknown, string][]) {
    assert.equal(valueJsonToLexical(value, type), undefined, `${String(value)} as ${type}`);
  }
});
