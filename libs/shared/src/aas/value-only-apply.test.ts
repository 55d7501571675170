import assert from "node:assert/strict";
import { test } from "node:test";
import { AasError } from "./aas-error.ts";
import { type ElementJson, getChildren } from "./element-tree.ts";
import { parseJsonLossless, stringifyLossless } from "./json-text.ts";
import { readAas } from "./model-io.ts";
import { exampleEnvironment, type Json, richSubmodel } from "./test-support/fixtures.ts";
import { toValueOnly } from "./value-only.ts";
import { applyValueOnly, unwrapValueOnly } from "./value-only-apply.ts";

const exampleElement = (idShort: string): Json =>
  exampleEnvironment().submodels[1].submodelElements.find((e: Json) => e.idShort === idShort);
const richElement = (idShort: string): Json =>
  (readAas(richSubmodel(), "Submodel", { validate: true }).jsonable as Json).submodelElements.find(
    (e: Json) => e.idShort === idShort,
  );

/** PATCH with a body given as JSON text, parsed as the engine does. */
const patch = (element: ElementJson, body: string): Json => applyValueOnly(element, parseJsonLossless(body));

const rejects = (element: ElementJson, body: string, path?: string) => {
  const before = structuredClone(element);
  assert.throws(
    () => patch(element, body),
    (error: unknown) => {
      assert.ok(error instanceof AasError && error.kind === "value", String(error));
      if (path !== undefined) assert.equal(error.path, path, error.message);
      return true;
    },
    body,
  );
  assert.deepEqual(element, before, "the element is untouched");
};

test("GET then PATCH of the same ValueOnly changes nothing, for every element", () => {
  const submodels = [...exampleEnvironment().submodels, richSubmodel()].map(
    (s) => readAas(s, "Submodel", { validate: true }).jsonable,
  );
  const everyElement = (elements: ElementJson[]): ElementJson[] =>
    elements.flatMap((e) => [e, ...everyElement(getChildren(e))]);
  let count = 0;
  for (const submodel of submodels) {
    for (const element of everyElement(submodel.submodelElements as ElementJson[])) {
      const value = toValueOnly(element, { extent: "withBlobValue" });
      if (value === undefined) continue;
      const patched = applyValueOnly(element, parseJsonLossless(stringifyLossless(value)));
      // Two stored lexical forms are rewritten in their normal form; nothing else changes.
      if (element.idShort === "Flag") assert.equal(patched.value, "true");
      else if (element.idShort === "Plus") assert.equal(patched.value, "0.5");
      else assert.deepEqual(patched, element, String(element.idShort));
      count++;
    }
  }
  assert.ok(count > 150, String(count));
});

test("numbers keep their digits and become lexical strings of the valueType", () => {
  assert.equal(patch(richElement("Decimal"), "12345678901234567890.123456789").value, "12345678901234567890.123456789");
  assert.equal(patch(richElement("Long"), "-9223372036854775808").value, "-9223372036854775808");
  assert.equal(patch(richElement("UnsignedLong"), "18446744073709551615").value, "18446744073709551615");
  assert.equal(patch(exampleElement("MaxRotationSpeed"), "5").value, "5");
  assert.equal(patch(richElement("Flag"), "false").value, "false");
  assert.equal(patch(richElement("Infinity"), '"-INF"').value, "-INF");
  assert.equal(patch(richElement("Date"), '"2024-03-01"').value, "2024-03-01");
  assert.equal(patch(richElement("Empty"), "7").value, "7");
  assert.equal("value" in patch(exampleElement("MaxRotationSpeed"), "null"), false, "null clears the value");
  assert.deepEqual(patch(richElement("HalfOpen"), '{"max": 9223372036854775807}'), {
    ...richElement("HalfOpen"),
    max: "9223372036854775807",
  });
});

test("rejects values of the wrong type, and keeps the element untouched", () => {
  rejects(exampleElement("MaxRotationSpeed"), '"abc"', "MaxRotationSpeed");
  rejects(exampleElement("MaxRotationSpeed"), "5.5");
  rejects(exampleElement("MaxRotationSpeed"), "true");
  rejects(exampleElement("MaxRotationSpeed"), "{}");
  rejects(richElement("Byte"), "300");
  rejects(richElement("Flag"), "1");
  rejects(richElement("Date"), "20240301");
  rejects(exampleElement("TemperatureRange"), '{"min": "cold"}', "TemperatureRange.min");
  rejects(exampleElement("TemperatureRange"), '{"mid": 1}', "TemperatureRange.mid");
  rejects(exampleElement("Firmware"), '{"value": "not base64!"}', "Firmware.value");
  rejects(exampleElement("Manual"), '{"contentType": null}', "Manual.contentType");
  rejects(exampleElement("Functions"), '{"Reset": {}}', "Functions.Reset");
  rejects(exampleElement("Functions").value[1], "{}");
});

test("collections update existing children only; unknown keys are errors", () => {
  const dimensions = exampleElement("Dimensions");
  const patched = patch(dimensions, '{"Width": 1.5, "Nested": {"Depth": 0.100}}');
  assert.equal(patched.value[0].value, "1.5");
  assert.equal(patched.value[1].value, "0.40", "siblings not in the body stay");
  assert.equal(patched.value[2].value[0].value, "0.100");
  rejects(dimensions, '{"Width": 1, "Nope": 2}', "Dimensions.Nope");
  rejects(dimensions, '{"Nested": {"Depth": "deep"}}', "Dimensions.Nested.Depth");
  rejects(dimensions, '{"Nested": null}', "Dimensions.Nested");
  rejects(dimensions, "[1]", "Dimensions");
});

test("a list's array is replaced whole: exactly as many items as exist, never fewer or more (spec §4.4.2)", () => {
  const tags = exampleElement("Tags");
  assert.deepEqual(
    patch(tags, '["a", "b"]').value.map((item: Json) => item.value),
    ["a", "b"],
  );
  // A shorter array used to patch the first items and keep the rest.
  rejects(tags, '["first"]', "Tags");
  rejects(tags, "[]", "Tags");
  rejects(tags, '["a", "b", "c"]', "Tags");
  rejects(tags, '{"0": "a"}', "Tags");
  const matrix = richElement("Matrix");
  const patched = patch(matrix, "[[10, 20], [30, 40]]");
  assert.deepEqual(
    patched.value.map((row: Json) => row.value.map((item: Json) => item.value)),
    [
      ["10", "20"],
      ["30", "40"],
    ],
  );
  rejects(matrix, "[[10], [30, 40]]", "Matrix[0]");
  rejects(matrix, "[[1, 2, 3], [3, 4]]", "Matrix[0]");
  rejects(matrix, '[[1, 2], [3, "x"]]', "Matrix[1][1]");
  const records = richElement("Records");
  const items = records.value.length;
  const body = JSON.stringify(Array.from({ length: items }, (_, index) => (index === 0 ? { A: "z" } : {})));
  assert.equal(patch(records, body).value[0].value[0].value, "z");
});

test("MultiLanguageProperty takes the array form and a single object", () => {
  const name = exampleElement("ProductName");
  const texts = (element: ElementJson) => element.value;
  assert.deepEqual(texts(patch(name, '[{"en": "Pump"}, {"fr": "Pompe"}]')), [
    { language: "en", text: "Pump" },
    { language: "fr", text: "Pompe" },
  ]);
  assert.deepEqual(texts(patch(name, '{"de": "Pumpe", "en": "Pump"}')), [
    { language: "de", text: "Pumpe" },
    { language: "en", text: "Pump" },
  ]);
  assert.equal("value" in patch(name, "null"), false);
  rejects(name, '[{"en": 5}]', "ProductName[0].en");
  rejects(name, '["Pump"]', "ProductName[0]");
  rejects(name, '{"not a language tag": "x"}');
  // The normal form's LangString and several languages in one array item are refused, not guessed at.
  rejects(name, '[{"language": "de", "text": "Hallo"}]', "ProductName[0]");
  rejects(name, '{"language": "de", "text": "Hallo"}', "ProductName");
  rejects(name, '[{"en": "Hi", "de": "Hallo"}]', "ProductName[0]");
});

test("a list of Operations or Capabilities takes GET's empty array back, and nothing else", () => {
  const list: ElementJson = {
    modelType: "SubmodelElementList",
    idShort: "Caps",
    typeValueListElement: "Capability",
    value: [{ modelType: "Capability" }, { modelType: "Capability" }],
  };
  assert.deepEqual(patch(list, "[]"), list);
  assert.deepEqual(applyValueOnly(list, unwrapValueOnly(list, parseJsonLossless('{"Caps": []}'))), list);
  rejects(list, "[{}, {}]", "Caps");
});

test("references, relationships, events and entities", () => {
  const reference = '{"type": "ExternalReference", "keys": [{"type": "GlobalReference", "value": "urn:new"}]}';
  const observed =
    '{"type": "ModelReference", "keys": [{"type": "Submodel", "value": "urn:new"}, {"type": "Property", "value": "P"}]}';
  const links = exampleElement("Links");
  const patched = patch(
    links,
    `{"ManufacturerLink": ${reference}, "SpeedToRange": {"second": ${reference}}, "SpeedChanged": {"observed": ${observed}},` +
      ` "AnnotatedLink": {"annotations": {"Note": "changed"}}}`,
  );
  const byId = (idShort: string) => patched.value.find((e: Json) => e.idShort === idShort);
  assert.equal(byId("ManufacturerLink").value.keys[0].value, "urn:new");
  assert.equal(byId("SpeedToRange").second.keys[0].value, "urn:new");
  assert.equal(byId("SpeedToRange").first.keys[1].value, "MaxRotationSpeed");
  assert.equal(byId("SpeedChanged").observed.keys[0].value, "urn:new");
  assert.equal(byId("AnnotatedLink").annotations[0].value, "changed");
  // The v3.0.1 array form and the singular "annotation" name are accepted too.
  const annotated = byId("AnnotatedLink");
  assert.equal(patch(annotated, '{"annotations": [{"Note": "a"}]}').annotations[0].value, "a");
  assert.equal(patch(annotated, '{"annotation": [{"Note": "b"}]}').annotations[0].value, "b");
  rejects(annotated, '{"annotations": {"Other": "x"}}', "AnnotatedLink.annotations.Other");
  rejects(links, '{"ManufacturerLink": {"type": "ExternalReference", "keys": []}}', "Links.ManufacturerLink");
  rejects(
    links,
    '{"ManufacturerLink": {"type": "ExternalReference", "keys": [{"type": "GlobalReference", "value": "x"}], "extra": 1}}',
  );
  rejects(links, '{"SpeedToRange": {"first": null}}', "Links.SpeedToRange.first");
  rejects(links, '{"SpeedToRange": {"third": {}}}', "Links.SpeedToRange.third");
  rejects(links, `{"SpeedChanged": {"observed": ${reference}}}`, "Links"); // must be a ModelReference (verification)
  assert.equal("value" in patch(byId("ManufacturerLink"), "null"), false);

  const motor = exampleElement("Motor");
  // aas-core's AASd-014: a self-managed entity has a globalAssetId or specificAssetIds, not both.
  const moved = patch(
    motor,
    '{"statements": {"Power": 2.2}, "globalAssetId": null, "specificAssetIds": [{"serial": "S-1"}]}',
  );
  assert.equal(moved.statements[0].value, "2.2");
  assert.deepEqual(moved.specificAssetIds, [{ name: "serial", value: "S-1" }]);
  assert.equal("globalAssetId" in moved, false);
  rejects(motor, '{"specificAssetIds": [{"serial": "S-1"}]}', "Motor");
  const coManaged = patch(motor, '{"entityType": "CoManagedEntity", "globalAssetId": null}');
  assert.equal(coManaged.entityType, "CoManagedEntity");
  assert.equal("globalAssetId" in coManaged, false);
  rejects(motor, '{"entityType": "Independent"}', "Motor.entityType");
  rejects(motor, '{"statements": {"Torque": 1}}', "Motor.statements.Torque");
  rejects(motor, '{"globalAssetId": null}', "Motor");
  rejects(motor, '{"specificAssetIds": [{"name": "serial"}]}', "Motor.specificAssetIds[0]");
});

test("verification can be left to the caller", () => {
  const motor = exampleElement("Motor");
  const patched = applyValueOnly(motor, { globalAssetId: null }, { verify: false, path: "Motor" });
  assert.equal("globalAssetId" in patched, false);
  assert.throws(
    () => applyValueOnly(motor, { statements: { Nope: 1 } }, { path: "Sub.Motor" }),
    (error: unknown) => error instanceof AasError && error.path === "Sub.Motor.statements.Nope",
  );
});

test("unwrapValueOnly accepts the wrapped and the bare form", () => {
  const speed = exampleElement("MaxRotationSpeed");
  assert.equal(unwrapValueOnly(speed, { MaxRotationSpeed: 5 }), 5);
  assert.equal(unwrapValueOnly(speed, 5), 5);
  assert.deepEqual(unwrapValueOnly(speed, { Other: 5 }), { Other: 5 });
  assert.deepEqual(unwrapValueOnly(exampleElement("Tags"), { Tags: ["a"] }), ["a"]);
  const dimensions = exampleElement("Dimensions");
  assert.deepEqual(unwrapValueOnly(dimensions, { Dimensions: { Width: 1 } }), { Width: 1 });
  assert.deepEqual(unwrapValueOnly(dimensions, { Width: 1 }), { Width: 1 });

  // A collection holding a child with its own idShort: a plain member value is the bare form.
  const nested: ElementJson = {
    modelType: "SubmodelElementCollection",
    idShort: "A",
    value: [{ modelType: "Property", idShort: "A", valueType: "xs:int", value: "1" }],
  };
  assert.deepEqual(unwrapValueOnly(nested, { A: 5 }), { A: 5 });
  assert.deepEqual(unwrapValueOnly(nested, { A: { A: 5 } }), { A: 5 });
  const range: ElementJson = { modelType: "Range", idShort: "min", valueType: "xs:int" };
  assert.deepEqual(unwrapValueOnly(range, { min: 5 }), { min: 5 });
  assert.deepEqual(unwrapValueOnly(range, { min: { min: 1, max: 2 } }), { min: 1, max: 2 });
  const english: ElementJson = { modelType: "MultiLanguageProperty", idShort: "en" };
  assert.deepEqual(unwrapValueOnly(english, { en: "text" }), { en: "text" });
  assert.deepEqual(unwrapValueOnly(english, { en: [{ en: "text" }] }), [{ en: "text" }]);
});

test("a number out of an integer type's range is reported as such, not as a JSON type mistake", () => {
  const element = { modelType: "Property", idShort: "I", valueType: "xs:int", value: "1" };
  assert.throws(
    () => patch(structuredClone(element), "99999999999"),
    /99999999999 is not a valid xs:int value \(out of the type's range, or not of its form\)/,
  );
  assert.throws(
    () => patch(structuredClone(element), "true"),
    /true is not a valid xs:int value \(expected a JSON number\)/,
  );
  // A string is the type's lexical form ("12" is taken): one out of range is not a JSON type mistake.
  for (const [valueType, text] of [
    ["xs:int", "2147483648"],
    ["xs:unsignedByte", "0256"],
  ] as const) {
    assert.throws(
      () => patch({ ...structuredClone(element), valueType }, JSON.stringify(text)),
      new RegExp(`"${text}" is not a valid ${valueType} value \\(out of the type's range, or not of its form\\)`),
    );
  }
});

test("a Blob of any size takes its bytes as ValueOnly; a bad one is still refused (no 'too long to be checked')", () => {
  const blob = { modelType: "Blob", idShort: "Firmware", contentType: "application/octet-stream" } as ElementJson;
  const firmware = Buffer.alloc(20_000_000, 0xa5).toString("base64");
  const valueOnly = (value: string) => ({ contentType: "application/octet-stream", value });
  const patched = applyValueOnly(blob, valueOnly(firmware), { path: "Firmware" });
  assert.equal(patched.value, firmware);
  assert.throws(
    () => applyValueOnly(blob, valueOnly(`${firmware.slice(0, -4)}*AAA`), { path: "Firmware" }),
    (error: unknown) => error instanceof AasError && /expected base64-encoded bytes/.test(error.message),
  );
});
