import assert from "node:assert/strict";
import { test } from "node:test";
import { aasCore, type ElementJson, isValidLexical, parseJsonLossless } from "../../aas/index.ts";
import { readJsonable } from "../aas-input.ts";
import { patchedInFull, patchedValue } from "./element-value.ts";

/**
 * The Property fast path of PATCH …/$value (ADR 0026) must decide exactly as the full re-read
 * does: the same stored element (bytes, member order) or the same error, for every valueType and
 * for values valid, invalid, odd and empty, with validation on and off.
 */
const VALUE_TYPES = Object.values(aasCore.types.DataTypeDefXsd)
  .filter((v): v is aasCore.types.DataTypeDefXsd => typeof v === "number")
  .map((v) => aasCore.stringification.dataTypeDefXsdToString(v)!);

const STARTING_VALUES = [
  "1",
  "-1",
  "true",
  "abc",
  "2024-01-01",
  "2024-01-01T00:00:00Z",
  "00:00:00",
  "P1D",
  "--01",
  "---01",
  "--01-01",
  "2024",
  "2024-01",
  "AA==",
  "0A",
];

const BODIES = [
  "1",
  "-1",
  "0",
  "-0",
  "1.50",
  "0.1",
  "1e3",
  "1E400",
  "-1e-400",
  "123456789012345678901234567890",
  "255",
  "256",
  "-129",
  "4294967296",
  "true",
  "false",
  '"abc"',
  '""',
  '" "',
  '"1"',
  '"-0"',
  '"+5"',
  '"007"',
  '"true"',
  '"1"',
  '"INF"',
  '"NaN"',
  '"2024-02-30"',
  '"2024-01-01"',
  '"2024-01-01T10:00:00+01:00"',
  '"P1Y2M"',
  '"AA=="',
  '"0a"',
  '"http://example.com/x y"',
  '"\\u0000x"',
  '"a\\u0001b"',
  '"\\ud800"',
  '"\\ufffe"',
];

function outcome(run: () => ElementJson): string {
  try {
    return `ok ${JSON.stringify(run())}`;
  } catch (error) {
    return `error ${(error as Error).constructor.name} ${(error as Error).message}`;
  }
}

function storedProperty(valueType: string): ElementJson {
  const value = STARTING_VALUES.find((lexical) => isValidLexical(lexical, valueType));
  assert.ok(value !== undefined, `no starting value for ${valueType}`);
  // As the engine stores it: read through the metamodel once (member order included).
  return readJsonable(
    {
      idShort: "P",
      category: "PARAMETER",
      description: [{ language: "en", text: "a property" }],
      semanticId: { type: "ExternalReference", keys: [{ type: "GlobalReference", value: "urn:x" }] },
      qualifiers: [{ type: "q", valueType: "xs:int", value: "1" }],
      valueType,
      value,
      modelType: "Property",
    },
    "SubmodelElement",
    true,
  );
}

test("the Property fast path stores what the full re-read stores, and refuses what it refuses, with its message", () => {
  let fast = 0;
  for (const valueType of VALUE_TYPES) {
    const element = storedProperty(valueType);
    for (const body of BODIES) {
      const value = parseJsonLossless(body);
      for (const validate of [true, false]) {
        const expected = outcome(() => patchedInFull(element, value, "P", validate));
        const actual = outcome(() => patchedValue(element, value, "P", validate));
        assert.equal(actual, expected, `${valueType} ← ${body} (validate ${validate})`);
        if (expected.startsWith("ok")) fast++;
      }
    }
  }
  assert.ok(fast > 100, `only ${fast} accepted patches were compared`);
});

test("a Property without a value yet, a null and a non-Property go the full way and come out the same", () => {
  const withoutValue = storedProperty("xs:int");
  delete withoutValue.value;
  for (const [element, value] of [
    [withoutValue, parseJsonLossless("5")],
    [storedProperty("xs:int"), null],
    [storedProperty("xs:string"), ""],
  ] as const) {
    assert.equal(
      outcome(() => patchedValue(element, value, "P", true)),
      outcome(() => patchedInFull(element, value, "P", true)),
    );
  }
});
