import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalLexical } from "./canonical-lexical.ts";
import { readAas } from "./model-io.ts";

test("integer types: no sign on zero, no '+', no leading zeros", () => {
  for (const type of [
    "xs:int",
    "xs:integer",
    "xs:long",
    "xs:short",
    "xs:byte",
    "xs:nonPositiveInteger",
    "xs:unsignedInt",
    "xs:nonNegativeInteger",
  ]) {
    assert.equal(canonicalLexical("-0", type), "0", type);
    assert.equal(canonicalLexical("+0", type), "0", type);
    assert.equal(canonicalLexical("-000", type), "0", type);
  }
  assert.equal(canonicalLexical("+42", "xs:int"), "42");
  assert.equal(canonicalLexical("007", "xs:long"), "7");
  assert.equal(canonicalLexical("-0012", "xs:integer"), "-12");
  assert.equal(canonicalLexical("123456789012345678901234567890", "xs:integer"), "123456789012345678901234567890");
  assert.equal(canonicalLexical(" 5", "xs:int"), " 5", "not an integer form: left for verification");
});

test("decimals keep their fraction digits; doubles keep their negative zero", () => {
  assert.equal(canonicalLexical("-0", "xs:decimal"), "0");
  assert.equal(canonicalLexical("-0.00", "xs:decimal"), "0.00");
  assert.equal(canonicalLexical("+001.50", "xs:decimal"), "1.50");
  assert.equal(canonicalLexical(".5", "xs:decimal"), "0.5");
  assert.equal(canonicalLexical("-.5", "xs:decimal"), "-0.5");
  assert.equal(canonicalLexical("5.", "xs:decimal"), "5");
  assert.equal(canonicalLexical("-0", "xs:double"), "-0");
  assert.equal(canonicalLexical("+1.5E3", "xs:double"), "1.5E3");
  assert.equal(canonicalLexical("0.40", "xs:double"), "0.40");
  assert.equal(canonicalLexical("INF", "xs:float"), "INF");
  assert.equal(canonicalLexical("NaN", "xs:double"), "NaN");
});

test("booleans: 1/0 become true/false; other types are untouched", () => {
  assert.equal(canonicalLexical("1", "xs:boolean"), "true");
  assert.equal(canonicalLexical("0", "xs:boolean"), "false");
  assert.equal(canonicalLexical("true", "xs:boolean"), "true");
  assert.equal(canonicalLexical("-0", "xs:string"), "-0");
  assert.equal(canonicalLexical("007", "xs:gYear"), "007");
});

test("every model input stores the canonical form: Property, Range, Qualifier", () => {
  const element = {
    modelType: "SubmodelElementCollection",
    idShort: "C",
    value: [
      {
        modelType: "Property",
        idShort: "I",
        valueType: "xs:int",
        value: "-0",
        qualifiers: [{ type: "q", valueType: "xs:long", value: "+007" }],
      },
      { modelType: "Range", idShort: "R", valueType: "xs:short", min: "-0", max: "+10" },
      { modelType: "Property", idShort: "B", valueType: "xs:boolean", value: "1" },
    ],
  };
  const { jsonable } = readAas(element, "SubmodelElement", { validate: true });
  const [i, r, b] = jsonable.value as Record<string, any>[];
  assert.equal(i!.value, "0");
  assert.equal(i!.qualifiers[0].value, "7");
  assert.deepEqual([r!.min, r!.max], ["0", "10"]);
  assert.equal(b!.value, "true");
});
