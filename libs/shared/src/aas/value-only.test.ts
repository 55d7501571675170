import assert from "node:assert/strict";
import { test } from "node:test";
import type { ElementJson } from "./element-tree.ts";
import { stringifyLossless } from "./json-text.ts";
import { readAas } from "./model-io.ts";
import { exampleEnvironment, type Json, richSubmodel } from "./test-support/fixtures.ts";
import { submodelToValueOnly, toValueOnly } from "./value-only.ts";

const text = (value: unknown) => stringifyLossless(value);
const element = (submodel: Json, idShort: string): Json =>
  submodel.submodelElements.find((e: Json) => e.idShort === idShort);

test("a submodel's ValueOnly form covers every element kind of the example (golden)", () => {
  const submodel = readAas(exampleEnvironment().submodels[1], "Submodel", { validate: true }).jsonable;
  const reference = (...keys: [string, string][]) => ({
    type: "ModelReference",
    keys: keys.map(([type, value]) => ({ type, value })),
  });
  const sm = "https://example.org/submodels/identification-1";
  const expected =
    "{" +
    '"Dimensions":{"Width":0.25,"Height":0.40,"Nested":{"Depth":0.3},"SerialNumber":"SN-0001","YearOfConstruction":2024},' +
    '"Tags":["pump","test"],' +
    '"Functions":{},' +
    '"Links":{' +
    '"ManufacturerLink":{"type":"ExternalReference","keys":[{"type":"GlobalReference","value":"https://example.org/manufacturer"}]},' +
    `"SpeedToRange":{"first":${JSON.stringify(reference(["Submodel", sm], ["Property", "MaxRotationSpeed"]))},"second":${JSON.stringify(reference(["Submodel", sm], ["Range", "TemperatureRange"]))}},` +
    `"AnnotatedLink":{"first":${JSON.stringify(reference(["Submodel", sm], ["Property", "MaxRotationSpeed"]))},"second":${JSON.stringify(reference(["Submodel", sm], ["MultiLanguageProperty", "ProductName"]))},"annotations":{"Note":"annotation value"}},` +
    `"SpeedChanged":{"observed":${JSON.stringify(reference(["Submodel", sm], ["Property", "MaxRotationSpeed"]))}}},` +
    '"MaxRotationSpeed":5000,' +
    '"ProductName":[{"en":"Test pump"},{"de":"Testpumpe"}],' +
    '"TemperatureRange":{"min":-20.5,"max":80.0},' +
    '"Firmware":{"contentType":"application/octet-stream"},' +
    '"Manual":{"contentType":"text/plain","value":"/aasx/files/manual.txt"},' +
    '"Motor":{"statements":{"Power":1.5},"entityType":"SelfManagedEntity","globalAssetId":"https://example.org/assets/motor-0001"}' +
    "}";
  assert.equal(text(submodelToValueOnly(submodel)), expected);
});

test("level=core shows direct children only; extent=withBlobValue adds Blob bytes", () => {
  const submodel = exampleEnvironment().submodels[0];
  const core = submodelToValueOnly(submodel, { level: "core", extent: "withBlobValue" });
  assert.deepEqual(core.Dimensions, {});
  assert.deepEqual(core.Tags, []);
  assert.deepEqual(core.Motor, {
    entityType: "SelfManagedEntity",
    globalAssetId: "https://example.org/assets/motor-0001",
  });
  assert.deepEqual(core.Firmware, { contentType: "application/octet-stream", value: "SGVsbG8gQUFTIQ==" });
  assert.ok(!("annotations" in (toValueOnly(element(submodel, "Links"), { level: "core" }) as Json)));
  // The element asked for is depth 0: its own children show, their children do not.
  assert.equal(
    text(toValueOnly(element(submodel, "Dimensions"), { level: "core" })),
    '{"Width":0.25,"Height":0.40,"Nested":{}}',
  );
});

test("Operation and Capability have no ValueOnly form and are skipped inside containers", () => {
  const submodel = exampleEnvironment().submodels[0];
  const functions = element(submodel, "Functions");
  assert.equal(toValueOnly(functions.value[0]), undefined);
  assert.equal(toValueOnly(functions.value[1]), undefined);
  assert.deepEqual(toValueOnly(functions), {});
  const rich = richSubmodel();
  assert.equal(text(toValueOnly(element(rich, "Records"))), '[{"A":"a0"},{"A":"a1"}]');
  assert.ok(!("Run" in submodelToValueOnly(rich)) && !("Skill" in submodelToValueOnly(rich)));
});

test("numbers keep every digit, booleans and odd lexical forms are normalised", () => {
  const rich = readAas(richSubmodel(), "Submodel", { validate: true }).jsonable;
  const one = (idShort: string) => text(toValueOnly(element(rich, idShort)));
  assert.equal(one("Decimal"), "12345678901234567890.123456789");
  assert.equal(one("Long"), "9223372036854775807");
  assert.equal(one("UnsignedLong"), "18446744073709551615");
  assert.equal(one("Flag"), "true");
  assert.equal(one("Plus"), "0.5");
  assert.equal(one("Infinity"), '"INF"');
  assert.equal(one("Empty"), "null");
  assert.equal(one("Date"), '"2024-02-29"');
  assert.equal(one("EmptyCollection"), "{}");
  assert.equal(one("EmptyList"), "[]");
  assert.equal(one("Matrix"), "[[1,2],[3,null]]", "a missing value keeps its list position as null");
  assert.equal(one("Title"), '[{"en":"Title"},{"de":"Titel"}]');
  assert.equal(one("HalfOpen"), '{"min":-9223372036854775808}');
  assert.equal(one("Bytes"), '{"contentType":"application/octet-stream"}');
  assert.equal(
    text(toValueOnly(element(rich, "Bytes"), { extent: "withBlobValue" })),
    '{"contentType":"application/octet-stream","value":"AAEC"}',
  );
  assert.equal(one("NoFile"), '{"contentType":"text/plain"}');
  assert.equal(one("NoRef"), "null");
  const part = toValueOnly(element(rich, "Part")) as Json;
  assert.deepEqual(Object.keys(part), ["statements", "entityType", "specificAssetIds"]);
  assert.equal(
    text(part.statements.Link.annotations),
    '{"Weight":0.5,"Doc":{"contentType":"text/plain","value":"/doc.txt"}}',
  );
  assert.deepEqual(part.specificAssetIds, element(rich, "Part").specificAssetIds);

  const all = submodelToValueOnly(rich);
  assert.ok(!("Empty" in all) && !("NoRef" in all), "absent values are left out of containers");
});

test("the ValueOnly result shares no objects with the element", () => {
  const submodel = exampleEnvironment().submodels[0];
  const links = element(submodel, "Links");
  const before = structuredClone(links);
  const value = toValueOnly(links) as Json;
  value.ManufacturerLink.keys[0].value = "changed";
  value.SpeedChanged.observed.type = "changed";
  assert.deepEqual(links, before);
});
