/**
 * The shape of AAS v3.0 JSON, as far as the input pre-pass needs it: for every class, its JSON
 * properties and which of them hold further model objects (one, or a list). Primitive properties
 * (strings, booleans, enums, base64) are just "primitive": aas-core checks their types.
 *
 * aas-core's jsonization has this knowledge but does not export it; metamodel-schema.test.ts
 * compares this table with aas-core's own setter tables, so an aas-core update that adds a
 * property fails a test instead of making valid input "unknown".
 */

export type PropertyShape = "primitive" | { one: ClassRef } | { many: ClassRef };

/** A concrete class name, or an abstract one resolved through `modelType`. */
export type ClassRef = string;

export interface ClassSchema {
  properties: Record<string, PropertyShape>;
  /** The class writes `modelType` (its own name) in JSON. */
  hasModelType: boolean;
  /**
   * Properties whose lexical value is typed by this object's `valueType` (spec §4.4.5: an empty
   * string there means "absent" when the type does not allow it).
   */
  typedValues?: string[];
}

/** Abstract classes whose concrete class is chosen by `modelType`. */
export const ABSTRACT_CLASSES: Record<string, readonly string[]> = {
  SubmodelElement: [
    "RelationshipElement",
    "AnnotatedRelationshipElement",
    "BasicEventElement",
    "Blob",
    "Capability",
    "Entity",
    "File",
    "MultiLanguageProperty",
    "Operation",
    "Property",
    "Range",
    "ReferenceElement",
    "SubmodelElementCollection",
    "SubmodelElementList",
  ],
  // AnnotatedRelationshipElement.annotations holds DataElements only.
  DataElement: ["Blob", "File", "MultiLanguageProperty", "Property", "Range", "ReferenceElement"],
  DataSpecificationContent: ["DataSpecificationIec61360"],
};

const P = "primitive" as const;
const one = (ref: ClassRef): PropertyShape => ({ one: ref });
const many = (ref: ClassRef): PropertyShape => ({ many: ref });

const hasSemantics = { semanticId: one("Reference"), supplementalSemanticIds: many("Reference") };
const referable = {
  extensions: many("Extension"),
  category: P,
  idShort: P,
  displayName: many("LangStringNameType"),
  description: many("LangStringTextType"),
};
const identifiable = { ...referable, administration: one("AdministrativeInformation"), id: P };
const hasDataSpecification = { embeddedDataSpecifications: many("EmbeddedDataSpecification") };
const qualifiable = { qualifiers: many("Qualifier") };
const submodelElement = { ...referable, ...hasSemantics, ...qualifiable, ...hasDataSpecification };
const relationship = { ...submodelElement, first: one("Reference"), second: one("Reference") };
const langString = { language: P, text: P };

function cls(properties: Record<string, PropertyShape>, hasModelType: boolean, typedValues?: string[]): ClassSchema {
  return typedValues ? { properties, hasModelType, typedValues } : { properties, hasModelType };
}

export const CLASSES: Record<string, ClassSchema> = {
  Environment: cls(
    {
      assetAdministrationShells: many("AssetAdministrationShell"),
      submodels: many("Submodel"),
      conceptDescriptions: many("ConceptDescription"),
    },
    false,
  ),
  AssetAdministrationShell: cls(
    {
      ...identifiable,
      ...hasDataSpecification,
      derivedFrom: one("Reference"),
      assetInformation: one("AssetInformation"),
      submodels: many("Reference"),
    },
    true,
  ),
  AssetInformation: cls(
    {
      assetKind: P,
      globalAssetId: P,
      specificAssetIds: many("SpecificAssetId"),
      assetType: P,
      defaultThumbnail: one("Resource"),
    },
    false,
  ),
  Resource: cls({ path: P, contentType: P }, false),
  SpecificAssetId: cls({ ...hasSemantics, name: P, value: P, externalSubjectId: one("Reference") }, false),
  Submodel: cls(
    {
      ...identifiable,
      kind: P,
      ...hasSemantics,
      ...qualifiable,
      ...hasDataSpecification,
      submodelElements: many("SubmodelElement"),
    },
    true,
  ),
  ConceptDescription: cls({ ...identifiable, ...hasDataSpecification, isCaseOf: many("Reference") }, true),

  RelationshipElement: cls(relationship, true),
  AnnotatedRelationshipElement: cls({ ...relationship, annotations: many("DataElement") }, true),
  SubmodelElementList: cls(
    {
      ...submodelElement,
      orderRelevant: P,
      semanticIdListElement: one("Reference"),
      typeValueListElement: P,
      valueTypeListElement: P,
      value: many("SubmodelElement"),
    },
    true,
  ),
  SubmodelElementCollection: cls({ ...submodelElement, value: many("SubmodelElement") }, true),
  Property: cls({ ...submodelElement, valueType: P, value: P, valueId: one("Reference") }, true, ["value"]),
  MultiLanguageProperty: cls(
    { ...submodelElement, value: many("LangStringTextType"), valueId: one("Reference") },
    true,
  ),
  Range: cls({ ...submodelElement, valueType: P, min: P, max: P }, true, ["min", "max"]),
  ReferenceElement: cls({ ...submodelElement, value: one("Reference") }, true),
  Blob: cls({ ...submodelElement, value: P, contentType: P }, true),
  File: cls({ ...submodelElement, value: P, contentType: P }, true),
  Entity: cls(
    {
      ...submodelElement,
      statements: many("SubmodelElement"),
      entityType: P,
      globalAssetId: P,
      specificAssetIds: many("SpecificAssetId"),
    },
    true,
  ),
  BasicEventElement: cls(
    {
      ...submodelElement,
      observed: one("Reference"),
      direction: P,
      state: P,
      messageTopic: P,
      messageBroker: one("Reference"),
      lastUpdate: P,
      minInterval: P,
      maxInterval: P,
    },
    true,
  ),
  Operation: cls(
    {
      ...submodelElement,
      inputVariables: many("OperationVariable"),
      outputVariables: many("OperationVariable"),
      inoutputVariables: many("OperationVariable"),
    },
    true,
  ),
  OperationVariable: cls({ value: one("SubmodelElement") }, false),
  Capability: cls(submodelElement, true),

  Extension: cls({ ...hasSemantics, name: P, valueType: P, value: P, refersTo: many("Reference") }, false, ["value"]),
  AdministrativeInformation: cls(
    { ...hasDataSpecification, version: P, revision: P, creator: one("Reference"), templateId: P },
    false,
  ),
  Qualifier: cls({ ...hasSemantics, kind: P, type: P, valueType: P, value: P, valueId: one("Reference") }, false, [
    "value",
  ]),
  Reference: cls({ type: P, referredSemanticId: one("Reference"), keys: many("Key") }, false),
  Key: cls({ type: P, value: P }, false),
  LangStringNameType: cls(langString, false),
  LangStringTextType: cls(langString, false),
  EmbeddedDataSpecification: cls(
    { dataSpecification: one("Reference"), dataSpecificationContent: one("DataSpecificationContent") },
    false,
  ),
  DataSpecificationIec61360: cls(
    {
      preferredName: many("LangStringPreferredNameTypeIec61360"),
      shortName: many("LangStringShortNameTypeIec61360"),
      unit: P,
      unitId: one("Reference"),
      sourceOfDefinition: P,
      symbol: P,
      dataType: P,
      definition: many("LangStringDefinitionTypeIec61360"),
      valueFormat: P,
      valueList: one("ValueList"),
      value: P,
      levelType: one("LevelType"),
    },
    true,
  ),
  LevelType: cls({ min: P, nom: P, typ: P, max: P }, false),
  ValueReferencePair: cls({ value: P, valueId: one("Reference") }, false),
  ValueList: cls({ valueReferencePairs: many("ValueReferencePair") }, false),
  LangStringPreferredNameTypeIec61360: cls(langString, false),
  LangStringShortNameTypeIec61360: cls(langString, false),
  LangStringDefinitionTypeIec61360: cls(langString, false),
};
