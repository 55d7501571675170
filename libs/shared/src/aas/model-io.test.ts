import assert from "node:assert/strict";
import { test } from "node:test";
import { AasError } from "./aas-error.ts";
import { readAas, readModel } from "./model-io.ts";
import { exampleEnvironment, type Json, richShell, richSubmodel } from "./test-support/fixtures.ts";

const failsWith = (kind: string, path?: string) => (error: unknown) => {
  assert.ok(error instanceof AasError, String(error));
  assert.equal(error.kind, kind, error.message);
  if (path !== undefined) assert.equal(error.path, path, error.message);
  return true;
};

/** The fixtures' one non-canonical value ("+.5" of an xs:double) is stored in its canonical form. */
function canonicalValues(json: Json): Json {
  return JSON.parse(JSON.stringify(json).replaceAll('"value":"+.5"', '"value":"0.5"'));
}

test("round-trips every shell, submodel and concept description of the example, and the whole environment", () => {
  const environment = exampleEnvironment();
  const cases: [Json, "AssetAdministrationShell" | "Submodel" | "ConceptDescription"][] = [
    ...environment.assetAdministrationShells.map((shell: Json) => [shell, "AssetAdministrationShell"] as const),
    ...environment.submodels.map((submodel: Json) => [submodel, "Submodel"] as const),
    ...environment.conceptDescriptions.map((cd: Json) => [cd, "ConceptDescription"] as const),
    [richSubmodel(), "Submodel"],
    [richShell(), "AssetAdministrationShell"],
  ];
  assert.equal(cases.length, 3 + 6 + 2 + 2);
  for (const [jsonable, target] of cases) {
    const before = structuredClone(jsonable);
    const { instance, jsonable: canonical } = readAas(jsonable, target, { validate: true });
    assert.deepEqual(canonical, canonicalValues(before), `${target} ${jsonable.id}`);
    assert.deepEqual(jsonable, before, "the input is not modified");
    assert.equal(instance.constructor.name, target);
  }
  const whole = readAas(exampleEnvironment(), "Environment", { validate: true });
  assert.deepEqual(whole.jsonable, canonicalValues(exampleEnvironment()));
  const element = exampleEnvironment().submodels[0].submodelElements[0];
  assert.deepEqual(readAas(element, "SubmodelElement", { validate: true }).jsonable, element);
});

test("rejects unknown properties with their JSON path (spec §7.2)", () => {
  const submodel = exampleEnvironment().submodels[0];
  submodel.submodelElements[2].valu = "x";
  assert.throws(
    () => readAas(submodel, "Submodel", { validate: false }),
    failsWith("unknown-property", "submodelElements[2].valu"),
  );

  const environment = exampleEnvironment();
  environment.submodels[1].submodelElements[0].value[0].valueTyp = "xs:int";
  assert.throws(
    () => readAas(environment, "Environment", { validate: false }),
    failsWith("unknown-property", "submodels[1].submodelElements[0].value[0].valueTyp"),
  );

  const cases: [Json, string][] = [
    [{ ...exampleEnvironment().submodels[0], foo: 1 }, "foo"],
    [withEdit(richSubmodel(), (s) => (s.semanticId.keys[0].vaule = "x")), "semanticId.keys[0].vaule"],
    [
      withEdit(
        richSubmodel(),
        (s) => (s.embeddedDataSpecifications[0].dataSpecificationContent.levelType.average = true),
      ),
      "embeddedDataSpecifications[0].dataSpecificationContent.levelType.average",
    ],
    [
      withEdit(richSubmodel(), (s) => (s.submodelElements[11].value[1].value[0].extra = 1)),
      "submodelElements[11].value[1].value[0].extra",
    ],
    [
      withEdit(
        richSubmodel(),
        (s) => (s.submodelElements.find((e: Json) => e.idShort === "Run").inputVariables[0].value.x = 1),
      ),
      "submodelElements[19].inputVariables[0].value.x",
    ],
    [withEdit(richSubmodel(), (s) => (s.semanticId.modelType = "Submodel")), "semanticId.modelType"],
  ];
  for (const [jsonable, path] of cases) {
    assert.throws(() => readAas(jsonable, "Submodel", { validate: false }), failsWith("unknown-property", path));
  }
});

test("tolerates a modelType that names its own class where the JSON schema has none", () => {
  const submodel = richSubmodel();
  submodel.extensions[0].modelType = "Extension";
  assert.equal(readAas(submodel, "Submodel", { validate: true }).jsonable.extensions instanceof Array, true);
});

test("null means absent (spec §4.4.4)", () => {
  const element = {
    modelType: "Property",
    idShort: "P",
    valueType: "xs:int",
    value: null,
    description: null,
    semanticId: null,
  };
  assert.deepEqual(readAas(element, "SubmodelElement", { validate: true }).jsonable, {
    modelType: "Property",
    idShort: "P",
    valueType: "xs:int",
  });
  const submodel = exampleEnvironment().submodels[0];
  submodel.submodelElements[0].value[0].semanticId = null;
  submodel.administration = null;
  assert.ok(readAas(submodel, "Submodel", { validate: true }));
  // A required property set to null is missing, which jsonization reports.
  assert.throws(
    () => readAas({ ...exampleEnvironment().submodels[0], id: null }, "Submodel", { validate: false }),
    failsWith("deserialization"),
  );
});

test("an empty string as a typed value means absent unless the valueType accepts it (spec §4.4.5)", () => {
  const read = (json: Json) => readAas(json, "SubmodelElement", { validate: true }).jsonable;
  assert.equal("value" in read({ modelType: "Property", idShort: "P", valueType: "xs:int", value: "" }), false);
  assert.equal("value" in read({ modelType: "Property", idShort: "P", valueType: "xs:dateTime", value: "" }), false);
  assert.equal(read({ modelType: "Property", idShort: "P", valueType: "xs:string", value: "" }).value, "");
  assert.equal(read({ modelType: "Property", idShort: "P", valueType: "xs:anyURI", value: "" }).value, "");
  assert.deepEqual(read({ modelType: "Range", idShort: "R", valueType: "xs:double", min: "", max: "1.5" }), {
    modelType: "Range",
    idShort: "R",
    valueType: "xs:double",
    max: "1.5",
  });
  const qualified = read({
    modelType: "Property",
    idShort: "P",
    valueType: "xs:string",
    qualifiers: [{ type: "q", valueType: "xs:int", value: "" }],
  });
  assert.deepEqual(qualified.qualifiers, [{ type: "q", valueType: "xs:int" }]);
});

test("reports jsonization errors with aas-core's JSON path", () => {
  const submodel = exampleEnvironment().submodels[0];
  submodel.submodelElements[0].value[0].valueType = 42;
  assert.throws(
    () => readAas(submodel, "Submodel", { validate: false }),
    failsWith("deserialization", "submodelElements[0].value[0].valueType"),
  );
  const unsupported = { modelType: "Property", idShort: "P", valueType: "xs:char", value: "x" };
  assert.throws(
    () => readAas(unsupported, "SubmodelElement", { validate: false }),
    failsWith("deserialization", "valueType"),
  );
  assert.throws(
    () => readAas({ modelType: "Nonsense" }, "SubmodelElement", { validate: false }),
    failsWith("deserialization"),
  );
  assert.throws(() => readAas([], "Submodel", { validate: false }), failsWith("deserialization"));
});

test("a Blob value that is no padded base64 is a deserialization error with its path, not aas-core's thrown Error", () => {
  // aas-core's decoder throws "Expected bytes to have length 1.5" for these (became a 500).
  for (const value of ["A", "QQ", "QQ=", "QUJDRA"]) {
    const blob = { modelType: "Blob", idShort: "B", contentType: "a/b", value };
    assert.throws(
      () => readAas(blob, "SubmodelElement", { validate: true }),
      (error: unknown) =>
        error instanceof AasError &&
        error.kind === "deserialization" &&
        error.path === "value" &&
        /xs:base64Binary/.test(error.message),
      value,
    );
    const submodel = {
      modelType: "Submodel",
      id: "urn:x",
      submodelElements: [{ modelType: "SubmodelElementCollection", idShort: "C", value: [blob] }],
    };
    assert.throws(
      () => readAas(submodel, "Submodel", { validate: true }),
      failsWith("deserialization", "submodelElements[0].value[0].value"),
    );
  }
  // Padded values, and the empty one, are read as before.
  for (const value of ["QQ==", "QUI=", "QUJD", ""]) {
    const blob = { modelType: "Blob", idShort: "B", contentType: "a/b", value };
    assert.equal(readAas(blob, "SubmodelElement", { validate: false }).jsonable.value ?? "", value);
  }
});

test("collects every verification error, each as 'path: message'", () => {
  const submodel = exampleEnvironment().submodels[0];
  submodel.idShort = "1bad";
  submodel.submodelElements.find((e: Json) => e.idShort === "MaxRotationSpeed").value = "abc";
  const range = submodel.submodelElements.find((e: Json) => e.idShort === "TemperatureRange");
  range.min = "warm";
  let caught: AasError | undefined;
  try {
    readAas(submodel, "Submodel", { validate: true });
  } catch (error) {
    caught = error as AasError;
  }
  assert.ok(caught instanceof AasError && caught.kind === "verification");
  const details = caught.details;
  assert.equal(details.length, 3, details.join("\n"));
  assert.match(details[0], /^idShort: /);
  assert.ok(
    details.some((d) => /^submodelElements\[4\]: Value must be consistent with the value type/.test(d)),
    details.join("\n"),
  );
  assert.ok(
    details.some((d) => /^submodelElements\[6\]: .*[Mm]in/.test(d)),
    details.join("\n"),
  );
  assert.match(caught.message, /^Invalid Submodel: 3 findings of 3 kinds: 1× ID-short of Referables/);
  assert.match(caught.message, /1× Value must be consistent with the value type\. \(first at submodelElements\[4\]\)/);
  assert.match(caught.message, /core\.validationOnCreate \/ validationOnUpdate false/);

  // Without validation the same input is accepted as it is.
  assert.equal(readAas(submodel, "Submodel", { validate: false }).jsonable.idShort, "1bad");
});

test("readModel reads the small classes ValueOnly input carries", () => {
  const reference = { type: "ExternalReference", keys: [{ type: "GlobalReference", value: "urn:x" }] };
  assert.deepEqual(readModel(reference, "Reference", { validate: true }).jsonable, reference);
  assert.throws(
    () => readModel({ type: "ExternalReference", keys: [] }, "Reference", { validate: true }),
    failsWith("verification"),
  );
  assert.throws(
    () => readModel({ ...reference, foo: 1 }, "Reference", { validate: true }),
    failsWith("unknown-property", "foo"),
  );
});

function withEdit(json: Json, edit: (json: Json) => void): Json {
  edit(json);
  return json;
}

test("findings are grouped by kind and the submodel template is named (issue 18.5)", () => {
  const aid = {
    modelType: "Submodel",
    id: "urn:x:aid",
    idShort: "AID",
    semanticId: {
      type: "ExternalReference",
      keys: [{ type: "GlobalReference", value: "https://admin-shell.io/idta/AssetInterfacesDescription/1/0/Submodel" }],
    },
    submodelElements: ["a", "b", "c"].map((idShort) => ({
      modelType: "SubmodelElementCollection",
      idShort,
      semanticId: { type: "ExternalReference", keys: [] },
    })),
  };
  assert.throws(
    () => readAas(aid, "Submodel", { validate: true }),
    (error: AasError) =>
      error.details.length === 3 &&
      error.message ===
        "Invalid Submodel (IDTA 02017 Asset Interfaces Description (AID), semanticId https://admin-shell.io/idta/AssetInterfacesDescription/1/0/Submodel): " +
          "3 findings of 1 kind: 3× Keys must contain at least one item. (first at submodelElements[0].semanticId). " +
          "Submodels with such findings are stored when validation is off: core.validationOnCreate / validationOnUpdate false for the API, validationOnLoad false or --no-validation for model files.",
  );
});

test("lexical variants with one reading are stored canonical (ADR 0031)", () => {
  const { jsonable } = readAas(
    {
      modelType: "Submodel",
      id: "urn:x:variants",
      embeddedDataSpecifications: [],
      submodelElements: [
        { modelType: "Property", idShort: "created", valueType: "xs:dateTime", value: "2022-12-27 08:26:49.219717" },
        { modelType: "Property", idShort: "zoned", valueType: "xs:dateTime", value: "2024-01-01 10:00:00+02:00" },
        { modelType: "Property", idShort: "observable", valueType: "xs:boolean", value: "True" },
        { modelType: "Property", idShort: "off", valueType: "xs:boolean", value: "FALSE" },
        { modelType: "SubmodelElementCollection", idShort: "empty", value: [] },
        {
          modelType: "SubmodelElementList",
          idShort: "security",
          typeValueListElement: "Property",
          valueTypeListElement: "xs:string",
          value: [{ modelType: "Property", idShort: "", valueType: "xs:string", value: "nosec_sc" }],
        },
      ],
    },
    "Submodel",
    { validate: true },
  );
  const elements = jsonable.submodelElements as Json[];
  assert.deepEqual(
    elements.slice(0, 4).map((e) => e.value),
    ["2022-12-27T08:26:49.219717", "2024-01-01T10:00:00+02:00", "true", "false"],
  );
  assert.equal("value" in elements[4]!, false, "an empty collection value is not set");
  assert.equal("idShort" in (elements[5]!.value as Json[])[0]!, false, "an empty idShort is not set");
  assert.equal("embeddedDataSpecifications" in jsonable, false);
  // Forms with another reading stay refused: two spaces, a "yes", a date without a time.
  for (const [valueType, value] of [
    ["xs:dateTime", "2022-12-27  08:26:49"],
    ["xs:boolean", "yes"],
    ["xs:dateTime", "2022-12-27"],
  ]) {
    assert.throws(
      () => readAas({ modelType: "Property", idShort: "p", valueType, value }, "SubmodelElement", { validate: true }),
      (error: AasError) => error.kind === "verification",
      `${valueType} ${value}`,
    );
  }
  // A required list stays: an empty Reference.keys is still a finding, not a missing property.
  assert.throws(
    () =>
      readAas({ modelType: "Submodel", id: "urn:x", semanticId: { type: "ExternalReference", keys: [] } }, "Submodel", {
        validate: true,
      }),
    (error: AasError) => error.kind === "verification" && /Keys must contain at least one item/.test(error.message),
  );
});

test("an unknown property's name is shortened in the error: a megabyte-long key does not come back twice", () => {
  const key = "k".repeat(1_000_000);
  assert.throws(
    () => readAas({ modelType: "Submodel", id: "urn:x", [key]: 1 }, "Submodel", { validate: true }),
    (error: unknown) => {
      assert.ok(error instanceof AasError);
      assert.ok(error.message.length < 700, String(error.message.length));
      assert.match(error.message, /^Unknown property "k{256}… \(1000000 characters\)" in Submodel at k{256}…/);
      return true;
    },
  );
  assert.throws(
    () => readAas({ modelType: "Submodel", id: "urn:x", nope: 1 }, "Submodel", { validate: true }),
    /^AasError: Unknown property "nope" in Submodel at nope$|Unknown property "nope" in Submodel at nope/,
  );
});

test("binary values of any size are verified (aas-core's own check overflows the stack on ~10 MB); a bad one is still an error", () => {
  const property = (value: string, valueType = "xs:base64Binary") => ({
    modelType: "Property",
    idShort: "Image",
    valueType,
    value,
  });
  const base64 = Buffer.alloc(15_000_000, 3).toString("base64");
  assert.equal(readAas(property(base64), "SubmodelElement", { validate: true }).jsonable.value, base64);
  const hex = Buffer.alloc(6_000_000, 3).toString("hex");
  assert.equal(readAas(property(hex, "xs:hexBinary"), "SubmodelElement", { validate: true }).jsonable.value, hex);
  assert.throws(
    () => readAas(property(`${base64.slice(0, -4)}*AAA`), "SubmodelElement", { validate: true }),
    (error: unknown) =>
      error instanceof AasError &&
      error.kind === "verification" &&
      /Image: value is no valid xs:base64Binary/.test(error.message),
  );
  // Inside a submodel too, beside other elements that are verified as usual.
  const submodel = {
    modelType: "Submodel",
    id: "urn:sm:images",
    submodelElements: [property(base64), { modelType: "Property", idShort: "Bad", valueType: "xs:int", value: "x" }],
  };
  assert.throws(
    () => readAas(submodel, "Submodel", { validate: true }),
    (error: unknown) =>
      error instanceof AasError &&
      error.kind === "verification" &&
      !/too long/.test(error.message) &&
      /Bad|value/.test(error.message),
  );
});
