import { DataType } from "node-opcua";

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

export const int64 = (value: bigint): [number, number] => {
  const unsigned = value < 0n ? value + 2n ** 64n : value;
  return [Number(unsigned / 2n ** 32n), Number(unsigned % 2n ** 32n)];
};

/** valueType → the Variant the client must read for the model's lexical value (spec §4.5 table). */
export const EXPECTED_READ: Record<string, [DataType, unknown]> = {
  "xs:string": [DataType.String, "hello"],
  "xs:boolean": [DataType.Boolean, true],
  "xs:decimal": [DataType.String, "123.4500"],
  "xs:integer": [DataType.String, "12345678901234567890"],
  "xs:double": [DataType.Double, 0.25],
  "xs:float": [DataType.Float, 1.5],
  "xs:date": [DataType.String, "2024-01-02"],
  "xs:dateTime": [DataType.DateTime, new Date("2024-01-02T01:04:05Z")],
  "xs:time": [DataType.String, "12:00:00"],
  "xs:gYear": [DataType.String, "2024"],
  "xs:duration": [DataType.String, "P1D"],
  "xs:byte": [DataType.SByte, -5],
  "xs:short": [DataType.Int16, -300],
  "xs:int": [DataType.Int32, 5000],
  "xs:long": [DataType.Int64, int64(-9007199254740993n)],
  "xs:unsignedByte": [DataType.Byte, 200],
  "xs:unsignedShort": [DataType.UInt16, 60000],
  "xs:unsignedInt": [DataType.UInt32, 4000000000],
  "xs:unsignedLong": [DataType.UInt64, int64(18446744073709551615n)],
  "xs:positiveInteger": [DataType.String, "5"],
  "xs:hexBinary": [DataType.ByteString, Buffer.from([0x0a, 0xff])],
  "xs:base64Binary": [DataType.ByteString, Buffer.from("Hi")],
  "xs:anyURI": [DataType.String, "https://example.org/x"],
};

/** valueType → [the value a client writes (with the node's DataType), the lexical the store must hold]. */
export const WRITES: Record<string, [unknown, string]> = {
  "xs:string": ["world", "world"],
  "xs:boolean": [false, "false"],
  "xs:decimal": ["0.1000", "0.1000"],
  "xs:integer": ["-98765432109876543210", "-98765432109876543210"],
  "xs:double": [1.25, "1.25"],
  "xs:float": [0.1, "0.1"],
  "xs:date": ["2025-12-31", "2025-12-31"],
  "xs:dateTime": [new Date("2025-06-01T10:00:00Z"), "2025-06-01T10:00:00Z"],
  "xs:time": ["23:59:59", "23:59:59"],
  "xs:gYear": ["1999", "1999"],
  "xs:duration": ["PT5M", "PT5M"],
  "xs:byte": [-128, "-128"],
  "xs:short": [32767, "32767"],
  "xs:int": [-1, "-1"],
  "xs:long": [int64(-9223372036854775808n), "-9223372036854775808"],
  "xs:unsignedByte": [255, "255"],
  "xs:unsignedShort": [65535, "65535"],
  "xs:unsignedInt": [4294967295, "4294967295"],
  "xs:unsignedLong": [int64(18446744073709551615n), "18446744073709551615"],
  "xs:positiveInteger": ["7", "7"],
  "xs:hexBinary": [Buffer.from([0x01, 0xab]), "01AB"],
  "xs:base64Binary": [Buffer.from("hey"), "aGV5"],
  "xs:anyURI": ["urn:x", "urn:x"],
};

const property = (idShort: string, valueType: string, value?: string) => ({
  modelType: "Property",
  idShort,
  valueType,
  ...(value === undefined ? {} : { value }),
});
const modelReference = (...keys: [string, string][]) => ({
  type: "ModelReference",
  keys: keys.map(([type, value]) => ({ type, value })),
});
const globalReference = (value: string) => ({ type: "ExternalReference", keys: [{ type: "GlobalReference", value }] });

export function opcuaTestEnvironment() {
  return {
    assetAdministrationShells: [
      {
        modelType: "AssetAdministrationShell",
        id: SHELL,
        idShort: "Pump",
        assetInformation: {
          assetKind: "Instance",
          globalAssetId: "urn:twinport:test:asset:pump",
          specificAssetIds: [{ name: "serial", value: "S-1" }],
        },
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
          ...Object.entries(TYPED_PROPERTIES).map(([valueType, [idShort, value]]) =>
            property(idShort, valueType, value),
          ),
          property("Empty", "xs:int"),
          { modelType: "Range", idShort: "Temperature", valueType: "xs:int", min: "1", max: "10" },
          {
            modelType: "Blob",
            idShort: "Firmware",
            contentType: "application/octet-stream",
            value: Buffer.from("hello").toString("base64"),
          },
          { modelType: "File", idShort: "Manual", contentType: "text/plain", value: "/aasx/manual.txt" },
          {
            modelType: "MultiLanguageProperty",
            idShort: "Name",
            value: [
              { language: "en", text: "pump" },
              { language: "de", text: "Pumpe" },
            ],
          },
          {
            modelType: "ReferenceElement",
            idShort: "Link",
            value: globalReference("https://example.org/manufacturer"),
          },
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
            inputVariables: [
              { value: property("Speed", "xs:int") },
              { value: { modelType: "MultiLanguageProperty", idShort: "Label" } },
            ],
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
            value: [
              property("Width", "xs:double", "1"),
              {
                modelType: "SubmodelElementCollection",
                idShort: "Inner",
                value: [property("Width", "xs:double", "2")],
              },
            ],
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
      {
        modelType: "Submodel",
        id: OTHER_SUBMODEL,
        idShort: "Values",
        submodelElements: [property("Width", "xs:double", "3")],
      },
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
