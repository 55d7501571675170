import assert from "node:assert/strict";
import { test } from "node:test";
import { detectJsonFormatProblem } from "./legacy-format.ts";
import { exampleEnvironment, richShell, richSubmodel } from "./test-support/fixtures.ts";

// A small AAS v2.0 environment in the shape the AASX Package Explorer 2.x wrote.
const V2_ENVIRONMENT = {
  assetAdministrationShells: [
    {
      idShort: "Pump",
      identification: { idType: "IRI", id: "urn:example:aas:pump" },
      asset: { keys: [{ type: "Asset", local: true, value: "urn:example:asset:pump", idType: "IRI" }] },
      submodels: [{ keys: [{ type: "Submodel", local: true, value: "urn:example:sm:nameplate", idType: "IRI" }] }],
      modelType: { name: "AssetAdministrationShell" },
    },
  ],
  assets: [
    {
      idShort: "PumpAsset",
      identification: { idType: "IRI", id: "urn:example:asset:pump" },
      kind: "Instance",
      modelType: { name: "Asset" },
    },
  ],
  submodels: [
    {
      idShort: "Nameplate",
      identification: { idType: "IRI", id: "urn:example:sm:nameplate" },
      kind: "Instance",
      submodelElements: [
        { idShort: "Serial", valueType: "string", value: "42", kind: "Instance", modelType: { name: "Property" } },
      ],
      modelType: { name: "Submodel" },
    },
  ],
  conceptDescriptions: [],
};

const CONVERT = /convert it to AAS v3\.0 \(e\.g\. with the AASX Package Explorer\)$/;

test("a v2.0 environment is recognised and the message asks for conversion", () => {
  const message = detectJsonFormatProblem(V2_ENVIRONMENT);
  assert.ok(message);
  assert.match(message, /^The model is in AAS v2\.0 format \(a top-level "assets" list at assets\)/);
  assert.match(message, CONVERT);
});

test("each v2.0 sign alone is enough", () => {
  const shell = { modelType: "AssetAdministrationShell", id: "urn:a", assetInformation: { assetKind: "Instance" } };
  const cases: [unknown, RegExp][] = [
    [
      { submodels: [{ modelType: { name: "Submodel" }, id: "urn:s" }] },
      /"modelType" as an object .* at submodels\[0\]\.modelType/,
    ],
    [{ submodels: [{ modelType: "Submodel", identification: { id: "urn:s", idType: "IRI" } }] }, /"identification"/],
    [{ assetAdministrationShells: [{ ...shell, asset: { keys: [] } }] }, /"asset" instead of "assetInformation"/],
    [
      {
        submodels: [
          {
            modelType: "Submodel",
            id: "urn:s",
            semanticId: { keys: [{ type: "GlobalReference", value: "x", idType: "IRI" }] },
          },
        ],
      },
      /"idType"/,
    ],
    [
      {
        conceptDescriptions: [
          {
            modelType: "ConceptDescription",
            id: "urn:c",
            embeddedDataSpecifications: [{ dataSpecificationContent: { preferredName: [] } }],
          },
        ],
      },
      /dataSpecificationContent without modelType/,
    ],
    [
      {
        submodels: [
          {
            modelType: "Submodel",
            id: "urn:s",
            submodelElements: [{ modelType: "Operation", idShort: "Op", inputVariable: [] }],
          },
        ],
      },
      /"inputVariable"/,
    ],
  ];
  for (const [json, pattern] of cases) {
    const message = detectJsonFormatProblem(json);
    assert.ok(message, String(pattern));
    assert.match(message, /AAS v2\.0 format/);
    assert.match(message, pattern);
  }
});

test("v3.0 release-candidate shapes are recognised", () => {
  const submodel = (element: Record<string, unknown>) => ({
    submodels: [{ modelType: "Submodel", id: "urn:s", submodelElements: [element] }],
  });
  const cases: [unknown, RegExp][] = [
    [
      {
        submodels: [
          {
            modelType: "Submodel",
            id: "urn:s",
            semanticId: { type: "GlobalReference", keys: [{ type: "GlobalReference", value: "x" }] },
          },
        ],
      },
      /"GlobalReference"/,
    ],
    [
      {
        assetAdministrationShells: [
          {
            modelType: "AssetAdministrationShell",
            id: "a",
            assetInformation: { assetKind: "Instance", globalAssetId: { type: "ExternalReference", keys: [] } },
          },
        ],
      },
      /"globalAssetId" as a Reference/,
    ],
    [
      submodel({ modelType: "Property", idShort: "P", kind: "Instance", valueType: "xs:string" }),
      /a Property with "kind"/,
    ],
    [submodel({ modelType: "Blob", idShort: "B", mimeType: "text/plain" }), /"mimeType"/],
    [submodel({ modelType: "SubmodelElementStruct", idShort: "S" }), /SubmodelElementStruct/],
    [
      {
        conceptDescriptions: [
          {
            modelType: "ConceptDescription",
            id: "c",
            embeddedDataSpecifications: [{ dataSpecificationContent: { modelType: "DataSpecificationIEC61360" } }],
          },
        ],
      },
      /DataSpecificationIEC61360/,
    ],
  ];
  for (const [json, pattern] of cases) {
    const message = detectJsonFormatProblem(json);
    assert.ok(message, String(pattern));
    assert.match(message, /in an AAS v3\.0 release-candidate format/);
    assert.match(message, pattern);
    assert.match(message, CONVERT);
  }
});

test("v3.0 models, including every fixture, are not flagged", () => {
  const environment = exampleEnvironment();
  environment.submodels.push(richSubmodel());
  environment.assetAdministrationShells.push(richShell());
  assert.equal(detectJsonFormatProblem(environment), undefined);
  assert.equal(detectJsonFormatProblem({}), undefined);
  for (const notAnObject of [null, [], "text", 42]) assert.equal(detectJsonFormatProblem(notAnObject), undefined);
});
