/**
 * An AAS environment for the OPC UA tests: one Property per xsd value type (spec §4.5 datatype
 * table), every writable element kind, every other kind, duplicate idShorts in different parents,
 * a list, an Operation with in/out/in-out variables, and a concept description without idShort.
 */
export const VALUES_SUBMODEL = "urn:twinport:test:submodel:values";
export const OTHER_SUBMODEL = "urn:twinport:test:submodel:other";
export const SHELL = "urn:twinport:test:aas:pump";
export const CD_WITH_ID_SHORT = "urn:twinport:test:cd:speed";
export const CD_WITHOUT_ID_SHORT = "urn:twinport:test:cd:anonymous";

/** valueType → [idShort, lexical value in the model] */
export const TYPED_PROPERTIES: Record<string, [string, string]> = {
  "xs:string": ["TString", "hello"],
  "xs:boolean": ["TBoolean", "true"],
  "xs:decimal": ["TDecimal", "123.4500"],
  "xs:integer": ["TInteger", "12345678901234567890"],
  "xs:double": ["TDouble", "0.25"],
  "xs:float": ["TFloat", "1.5"],
  "xs:date": ["TDate", "2024-01-02"],
  "xs:dateTime": ["TDateTime", "2024-01-02T03:04:05+02:00"],
  "xs:time": ["TTime", "12:00:00"],
  "xs:gYear": ["TGYear", "2024"],
  "xs:duration": ["TDuration", "P1D"],
  "xs:byte": ["TByte", "-5"],
  "xs:short": ["TShort", "-300"],
  "xs:int": ["TInt", "5000"],
  "xs:long": ["TLong", "-9007199254740993"],
  "xs:unsignedByte": ["TUnsignedByte", "200"],
  "xs:unsignedShort": ["TUnsignedShort", "60000"],
  "xs:unsignedInt": ["TUnsignedInt", "4000000000"],
  "xs:unsignedLong": ["TUnsignedLong", "18446744073709551615"],
  "xs:positiveInteger": ["TPositiveInteger", "5"],
  "xs:hexBinary": ["THexBinary", "0AFF"],
  "xs:base64Binary": ["TBase64Binary", "SGk="],
  "xs:anyURI": ["TAnyUri", "https://example.org/x"],
};

const property = (idShort: string, valueType: string, value?: string) => ({ modelType: "Property", idShort, valueType, ...(value === undefined ? {} : { value }) });
const modelReference = (...keys: [string, string][]) => ({ type: "ModelReference", keys: keys.map(([type, value]) => ({ type, value })) });
const globalReference = (value: string) => ({ type: "ExternalReference", keys: [{ type: "GlobalReference", value }] });

export function opcuaTestEnvironment() {
  return {
    assetAdministrationShells: [
      {
        modelType: "AssetAdministrationShell",
        id: SHELL,
        idShort: "Pump",
        assetInformation: { assetKind: "Instance", globalAssetId: "urn:twinport:test:asset:pump", specificAssetIds: [{ name: "serial", value: "S-1" }] },
        submodels: [modelReference(["Submodel", VALUES_SUBMODEL]), modelReference(["Submodel", OTHER_SUBMODEL])],
      },
    ],
    submodels: [
      {
        modelType: "Submodel",
        id: VALUES_SUBMODEL,
        idShort: "Values",
        semanticId: globalReference("urn:twinport:test:semantics:values"),
        submodelElements: [
          ...Object.entries(TYPED_PROPERTIES).map(([valueType, [idShort, value]]) => property(idShort, valueType, value)),
          property("Empty", "xs:int"),
          { modelType: "Range", idShort: "Temperature", valueType: "xs:int", min: "1", max: "10" },
          { modelType: "Blob", idShort: "Firmware", contentType: "application/octet-stream", value: Buffer.from("hello").toString("base64") },
          { modelType: "File", idShort: "Manual", contentType: "text/plain", value: "/aasx/manual.txt" },
          {
            modelType: "MultiLanguageProperty",
            idShort: "Name",
            value: [
              { language: "en", text: "pump" },
              { language: "de", text: "Pumpe" },
            ],
          },
          { modelType: "ReferenceElement", idShort: "Link", value: globalReference("https://example.org/manufacturer") },
          {
            modelType: "RelationshipElement",
            idShort: "Rel",
            first: modelReference(["Submodel", VALUES_SUBMODEL], ["Property", "TInt"]),
            second: modelReference(["Submodel", VALUES_SUBMODEL], ["Range", "Temperature"]),
          },
          {
            modelType: "AnnotatedRelationshipElement",
            idShort: "AnnotatedRel",
            first: modelReference(["Submodel", VALUES_SUBMODEL], ["Property", "TInt"]),
            second: modelReference(["Submodel", VALUES_SUBMODEL], ["Property", "TDouble"]),
            annotations: [property("Note", "xs:string", "annotated")],
          },
          {
            modelType: "Entity",
            idShort: "Motor",
            entityType: "SelfManagedEntity",
            globalAssetId: "urn:twinport:test:asset:motor",
            statements: [property("Power", "xs:double", "1.5")],
          },
          {
            modelType: "Operation",
            idShort: "Start",
            inputVariables: [{ value: property("Speed", "xs:int") }, { value: { modelType: "MultiLanguageProperty", idShort: "Label" } }],
            outputVariables: [{ value: property("Ok", "xs:boolean") }],
            inoutputVariables: [{ value: property("Mode", "xs:string") }],
          },
          {
            modelType: "SubmodelElementList",
            idShort: "Tags",
            typeValueListElement: "Property",
            valueTypeListElement: "xs:string",
            // List items have no idShort (AASd-120).
            value: ["a", "b", "c"].map((value) => ({ modelType: "Property", valueType: "xs:string", value })),
          },
          {
            modelType: "SubmodelElementCollection",
            idShort: "Group",
            value: [property("Width", "xs:double", "1"), { modelType: "SubmodelElementCollection", idShort: "Inner", value: [property("Width", "xs:double", "2")] }],
          },
          { modelType: "Capability", idShort: "Pumping" },
          {
            modelType: "BasicEventElement",
            idShort: "Changed",
            observed: modelReference(["Submodel", VALUES_SUBMODEL], ["Property", "TInt"]),
            direction: "output",
            state: "off",
          },
        ],
      },
      { modelType: "Submodel", id: OTHER_SUBMODEL, idShort: "Values", submodelElements: [property("Width", "xs:double", "3")] },
    ],
    conceptDescriptions: [
      { modelType: "ConceptDescription", id: CD_WITH_ID_SHORT, idShort: "Speed" },
      { modelType: "ConceptDescription", id: CD_WITHOUT_ID_SHORT },
    ],
  };
}

/** The local NodeId of an element (address-space/node-ids.ts): "<submodel id>|<idShortPath>". */
export function elementNode(submodelId: string, path: string, sub?: string): string {
  return `${submodelId}|${path}${sub === undefined ? "" : `/${sub}`}`;
}

export function identifiableNode(id: string, sub?: string): string {
  return `${id}|${sub === undefined ? "" : `/${sub}`}`;
}
