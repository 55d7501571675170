import { readFileSync } from "node:fs";

/**
 * Test data for this folder's tests (not exported from index.ts): the repository's example
 * environment, and a submodel that uses every optional property the metamodel has, nested lists
 * (L[0][1]), and a collection without children.
 */

export type Json = Record<string, any>;

const EXAMPLE_URL = new URL("../../../../../examples/model.json", import.meta.url);

/** A fresh copy of examples/model.json on every call. */
export function exampleEnvironment(): Json {
  return JSON.parse(readFileSync(EXAMPLE_URL, "utf8"));
}

const ref = (value: string, type = "GlobalReference") => ({ type: "ExternalReference", keys: [{ type, value }] });
const modelRef = (...keys: [string, string][]) => ({
  type: "ModelReference",
  keys: keys.map(([type, value]) => ({ type, value })),
});
const text = (language: string, value: string) => ({ language, text: value });
const iecSpec = {
  dataSpecification: ref("https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIec61360/3"),
  dataSpecificationContent: {
    modelType: "DataSpecificationIec61360",
    preferredName: [text("en", "speed")],
    shortName: [text("en", "n")],
    unit: "1/min",
    unitId: ref("0173-1#05-AAA650#002"),
    sourceOfDefinition: "ECLASS",
    symbol: "n",
    dataType: "INTEGER_MEASURE",
    definition: [text("en", "rotation speed")],
    valueFormat: "xs:int",
    valueList: { valueReferencePairs: [{ value: "1", valueId: ref("urn:one") }] },
    levelType: { min: true, nom: false, typ: false, max: true },
  },
};
const prop = (idShort: string | undefined, valueType: string, value?: string): Json => ({
  modelType: "Property",
  ...(idShort === undefined ? {} : { idShort }),
  valueType,
  ...(value === undefined ? {} : { value }),
});

// A JSON round trip, not structuredClone: the fixtures reuse objects (iecSpec) that must not stay
// shared between two places of one result.
const fresh = (json: Json): Json => JSON.parse(JSON.stringify(json));

export const RICH_SUBMODEL_ID = "https://example.org/submodels/rich";

export function richSubmodel(): Json {
  return fresh({
    modelType: "Submodel",
    id: RICH_SUBMODEL_ID,
    idShort: "Rich",
    category: "PARAMETER",
    displayName: [text("en", "Rich")],
    description: [text("en", "every property kind")],
    administration: {
      version: "1",
      revision: "0",
      creator: ref("urn:creator"),
      templateId: "urn:template",
      embeddedDataSpecifications: [iecSpec],
    },
    kind: "Instance",
    semanticId: ref("urn:semantic"),
    supplementalSemanticIds: [ref("urn:supplemental")],
    qualifiers: [{ kind: "ConceptQualifier", type: "q", valueType: "xs:int", value: "1", valueId: ref("urn:q") }],
    extensions: [
      { name: "ext", valueType: "xs:string", value: "v", refersTo: [modelRef(["Submodel", RICH_SUBMODEL_ID])] },
    ],
    embeddedDataSpecifications: [iecSpec],
    submodelElements: [
      {
        ...prop("Decimal", "xs:decimal", "12345678901234567890.123456789"),
        valueId: ref("urn:decimal"),
        semanticId: ref("urn:decimal-semantic"),
      },
      prop("Long", "xs:long", "9223372036854775807"),
      prop("UnsignedLong", "xs:unsignedLong", "18446744073709551615"),
      prop("Flag", "xs:boolean", "true"),
      prop("Plus", "xs:double", "+.5"),
      prop("Infinity", "xs:double", "INF"),
      prop("Empty", "xs:int"),
      prop("Byte", "xs:byte", "7"),
      prop("Date", "xs:date", "2024-02-29"),
      { modelType: "SubmodelElementCollection", idShort: "EmptyCollection" },
      {
        modelType: "SubmodelElementList",
        idShort: "EmptyList",
        typeValueListElement: "Property",
        valueTypeListElement: "xs:int",
      },
      {
        modelType: "SubmodelElementList",
        idShort: "Matrix",
        orderRelevant: true,
        semanticIdListElement: ref("urn:row"),
        typeValueListElement: "SubmodelElementList",
        value: [
          {
            modelType: "SubmodelElementList",
            semanticId: ref("urn:row"),
            typeValueListElement: "Property",
            valueTypeListElement: "xs:int",
            value: [prop(undefined, "xs:int", "1"), prop(undefined, "xs:int", "2")],
          },
          {
            modelType: "SubmodelElementList",
            semanticId: ref("urn:row"),
            typeValueListElement: "Property",
            valueTypeListElement: "xs:int",
            value: [prop(undefined, "xs:int", "3"), prop(undefined, "xs:int")],
          },
        ],
      },
      {
        modelType: "SubmodelElementList",
        idShort: "Records",
        typeValueListElement: "SubmodelElementCollection",
        value: [
          {
            modelType: "SubmodelElementCollection",
            value: [prop("A", "xs:string", "a0"), { modelType: "Capability", idShort: "Cap" }],
          },
          { modelType: "SubmodelElementCollection", value: [prop("A", "xs:string", "a1")] },
        ],
      },
      {
        modelType: "MultiLanguageProperty",
        idShort: "Title",
        value: [text("en", "Title"), text("de", "Titel")],
        valueId: ref("urn:title"),
      },
      { modelType: "Range", idShort: "HalfOpen", valueType: "xs:long", min: "-9223372036854775808" },
      { modelType: "Blob", idShort: "Bytes", contentType: "application/octet-stream", value: "AAEC" },
      { modelType: "File", idShort: "NoFile", contentType: "text/plain" },
      { modelType: "ReferenceElement", idShort: "NoRef" },
      {
        modelType: "BasicEventElement",
        idShort: "Event",
        observed: modelRef(["Submodel", RICH_SUBMODEL_ID], ["Property", "Decimal"]),
        direction: "output",
        state: "on",
        messageTopic: "topic",
        messageBroker: modelRef(["Submodel", RICH_SUBMODEL_ID], ["Property", "Long"]),
        lastUpdate: "2024-01-01T00:00:00Z",
        minInterval: "PT1S",
        maxInterval: "PT1M",
      },
      {
        modelType: "Operation",
        idShort: "Run",
        inputVariables: [{ value: prop("In", "xs:int", "1") }],
        outputVariables: [{ value: prop("Out", "xs:int") }],
        inoutputVariables: [{ value: prop("InOut", "xs:string", "x") }],
      },
      {
        modelType: "Entity",
        idShort: "Part",
        entityType: "SelfManagedEntity",
        specificAssetIds: [
          {
            name: "serial",
            value: "42",
            externalSubjectId: ref("urn:subject"),
            semanticId: ref("urn:serial"),
            supplementalSemanticIds: [ref("urn:serial2")],
          },
        ],
        statements: [
          {
            modelType: "AnnotatedRelationshipElement",
            idShort: "Link",
            first: modelRef(["Submodel", RICH_SUBMODEL_ID], ["Property", "Decimal"]),
            second: modelRef(["Submodel", RICH_SUBMODEL_ID], ["Property", "Long"]),
            annotations: [
              prop("Weight", "xs:float", "0.5"),
              { modelType: "File", idShort: "Doc", contentType: "text/plain", value: "/doc.txt" },
            ],
          },
        ],
      },
      {
        modelType: "Capability",
        idShort: "Skill",
        qualifiers: [{ type: "q", valueType: "xs:string" }],
      },
    ],
  });
}

/** A shell with every optional property, for the metamodel walk. */
export function richShell(): Json {
  return fresh({
    modelType: "AssetAdministrationShell",
    id: "https://example.org/aas/rich",
    idShort: "RichShell",
    administration: { version: "2", revision: "1" },
    derivedFrom: modelRef(["AssetAdministrationShell", "https://example.org/aas/test-1"]),
    assetInformation: {
      assetKind: "Type",
      globalAssetId: "urn:asset",
      assetType: "urn:type",
      specificAssetIds: [{ name: "n", value: "v" }],
      defaultThumbnail: { path: "/t.png", contentType: "image/png" },
    },
    submodels: [modelRef(["Submodel", RICH_SUBMODEL_ID])],
    embeddedDataSpecifications: [
      {
        dataSpecification: iecSpec.dataSpecification,
        dataSpecificationContent: {
          modelType: "DataSpecificationIec61360",
          preferredName: [text("en", "shell")],
          value: "1",
        },
      },
    ],
  });
}
