/**
 * The parts of the AAS metamodel the console reads (AAS Part 1 JSON), and what a person sees of an
 * element: its value as text and its unit.
 */
export interface Key {
  type: string;
  value: string;
}
export interface Reference {
  type: string;
  keys: Key[];
}
export interface LangString {
  language: string;
  text: string;
}
export interface DataSpecificationContent {
  modelType?: string;
  preferredName?: LangString[];
  definition?: LangString[];
  unit?: string;
  dataType?: string;
}
export interface HasDataSpecification {
  embeddedDataSpecifications?: { dataSpecificationContent?: DataSpecificationContent }[];
}
export interface Element extends HasDataSpecification {
  modelType: string;
  idShort?: string;
  valueType?: string;
  semanticId?: Reference;
  // The value's shape depends on modelType (a string, a list of elements, a reference, …).
  value?: unknown;
  contentType?: string;
  min?: string;
  max?: string;
  first?: Reference;
  second?: Reference;
  annotations?: Element[];
  statements?: Element[];
  entityType?: string;
  globalAssetId?: string;
  observed?: Reference;
  inputVariables?: { value: Element }[];
  inoutputVariables?: { value: Element }[];
  outputVariables?: { value: Element }[];
}
export interface Submodel extends HasDataSpecification {
  id: string;
  idShort?: string;
  semanticId?: Reference;
  submodelElements?: Element[];
}
export interface Shell {
  id: string;
  idShort?: string;
  assetInformation?: { globalAssetId?: string; assetKind?: string; defaultThumbnail?: { path: string } };
  submodels?: Reference[];
}
export interface ConceptDescription extends HasDataSpecification {
  id: string;
  idShort?: string;
}

/** The children an element has in the tree (collection, list, entity statements, annotations). */
export function childrenOf(element: Element): Element[] {
  if (element.modelType === "SubmodelElementCollection" || element.modelType === "SubmodelElementList")
    return Array.isArray(element.value) ? (element.value as Element[]) : [];
  if (element.modelType === "Entity") return element.statements ?? [];
  if (element.modelType === "AnnotatedRelationshipElement") return element.annotations ?? [];
  return [];
}

/** The idShortPath of a child: `parent.child`, or `parent[i]` inside a list. */
export function childPath(parentPath: string, parent: Element | undefined, child: Element, index: number): string {
  if (parent === undefined) return child.idShort ?? "";
  if (parent.modelType === "SubmodelElementList") return `${parentPath}[${index}]`;
  return `${parentPath}.${child.idShort ?? ""}`;
}

const iec61360 = (holder: HasDataSpecification | undefined): DataSpecificationContent | undefined =>
  holder?.embeddedDataSpecifications?.map((s) => s.dataSpecificationContent).find((c) => c?.unit || c?.preferredName);

/**
 * The unit of an element: its own IEC 61360 data specification, else that of the concept
 * description its semanticId names.
 */
export function unitOf(element: Element, conceptDescriptions: Map<string, ConceptDescription>): string | undefined {
  const own = iec61360(element)?.unit;
  if (own) return own;
  const semantic = element.semanticId?.keys?.[0]?.value;
  return semantic === undefined ? undefined : iec61360(conceptDescriptions.get(semantic))?.unit;
}

export function dataSpecificationOf(holder: HasDataSpecification | undefined): DataSpecificationContent | undefined {
  return iec61360(holder);
}

export function langText(strings: LangString[] | undefined): string {
  return (strings ?? []).map((s) => `${s.language}: ${s.text}`).join("; ");
}

const referenceText = (reference: Reference | undefined): string =>
  reference?.keys?.map((k) => k.value).join(" / ") ?? "";

/** The element's value as a person reads it in the tree. */
export function valueText(element: Element): string {
  switch (element.modelType) {
    case "Property":
      return element.value === undefined || element.value === null ? "" : String(element.value);
    case "MultiLanguageProperty":
      return langText(element.value as LangString[] | undefined);
    case "Range":
      return `${element.min ?? ""} … ${element.max ?? ""}`;
    case "File":
      return `${element.value ?? ""}${element.contentType ? ` (${element.contentType})` : ""}`;
    case "Blob": {
      const length = typeof element.value === "string" ? Math.floor((element.value.length * 3) / 4) : 0;
      return `${element.contentType ?? ""}, ${length} bytes`;
    }
    case "ReferenceElement":
      return referenceText(element.value as Reference | undefined);
    case "RelationshipElement":
    case "AnnotatedRelationshipElement":
      return `${referenceText(element.first)} → ${referenceText(element.second)}`;
    case "Entity":
      return [element.entityType, element.globalAssetId].filter(Boolean).join(", ");
    case "BasicEventElement":
      return referenceText(element.observed);
    case "SubmodelElementCollection":
    case "SubmodelElementList":
      return `${childrenOf(element).length} element(s)`;
    default:
      return "";
  }
}
