import { fileURLToPath } from "node:url";
import { type AddressSpace, type NodeId, nodesets } from "node-opcua";

/** The official I4AAS companion specification (AAS v2.0 mapping), shipped with node-opcua. */
export const I4AAS_NAMESPACE_URI = "http://opcfoundation.org/UA/I4AAS/";
/** Our v3.0 extension of it; the AAS instances live in this namespace too. */
export const AAS_V3_NAMESPACE_URI = "urn:twinport:UA:AAS:v3";

export const AAS_V3_NODESET = fileURLToPath(new URL("./twinport-aas-v3.NodeSet2.xml", import.meta.url));

/** What the OPCUAServer must load, in this order (ours refers to both others). */
export const AAS_NODESETS: readonly string[] = [nodesets.standard, nodesets.i4aas, AAS_V3_NODESET];

const I4AAS_OBJECT_TYPES = [
  "AASAssetAdministrationShellType",
  "AASSubmodelType",
  "AASPropertyType",
  "AASRangeType",
  "AASBlobType",
  "AASFileType",
  "AASMultiLanguagePropertyType",
  "AASReferenceElementType",
  "AASRelationshipElementType",
  "AASAnnotatedRelationshipElementType",
  "AASEntityType",
  "AASOperationType",
  "AASCapabilityType",
  "AASSubmodelElementCollectionType",
  "AASAdministrativeInformationType",
  "AASQualifierType",
] as const;

const V3_OBJECT_TYPES = [
  "AASEnvironmentType",
  "AASReferenceType",
  "AASSubmodelElementListType",
  "AASAssetInformationType",
  "AASBasicEventElementType",
  "AASConceptDescriptionType",
] as const;

const I4AAS_DATA_TYPES = ["AASEntityTypeDataType", "AASModelingKindDataType"] as const;
const V3_DATA_TYPES = [
  "AASKeyTypesDataType",
  "AASReferenceTypesDataType",
  "AASDataTypeDefXsdDataType",
  "AASAssetKindDataType",
  "AASKeyDataType",
  "AASSpecificAssetIdDataType",
] as const;

type ObjectTypeName =
  | (typeof I4AAS_OBJECT_TYPES)[number]
  | (typeof V3_OBJECT_TYPES)[number]
  | "FolderType"
  | "BaseObjectType";
type DataTypeName = (typeof I4AAS_DATA_TYPES)[number] | (typeof V3_DATA_TYPES)[number];

/** The nodes every mapping step needs, resolved once after the nodesets are loaded. */
export interface AasTypes {
  addressSpace: AddressSpace;
  /** Namespace index of I4AAS (browse names it defines) and of ours (instances, v3 names). */
  i4aasIndex: number;
  v3Index: number;
  objectType: Record<ObjectTypeName, NodeId>;
  dataType: Record<DataTypeName, NodeId>;
  reference: {
    hasComponent: NodeId;
    hasProperty: NodeId;
    organizes: NodeId;
    hasTypeDefinition: NodeId;
    aasReference: NodeId;
  };
  propertyType: NodeId;
}

export function resolveAasTypes(addressSpace: AddressSpace): AasTypes {
  const i4aasIndex = addressSpace.getNamespaceIndex(I4AAS_NAMESPACE_URI);
  const v3Index = addressSpace.getNamespaceIndex(AAS_V3_NAMESPACE_URI);
  if (i4aasIndex < 0 || v3Index < 0)
    throw new Error(`The OPC UA server was started without the AAS nodesets (load AAS_NODESETS)`);
  const need = <T>(node: T | null | undefined, what: string): T => {
    if (!node) throw new Error(`AAS nodeset is missing ${what}`);
    return node;
  };
  const objectType = {} as Record<ObjectTypeName, NodeId>;
  for (const name of I4AAS_OBJECT_TYPES)
    objectType[name] = need(addressSpace.findObjectType(name, i4aasIndex), name).nodeId;
  for (const name of V3_OBJECT_TYPES) objectType[name] = need(addressSpace.findObjectType(name, v3Index), name).nodeId;
  objectType.FolderType = need(addressSpace.findObjectType("FolderType"), "FolderType").nodeId;
  objectType.BaseObjectType = need(addressSpace.findObjectType("BaseObjectType"), "BaseObjectType").nodeId;
  const dataType = {} as Record<DataTypeName, NodeId>;
  for (const name of I4AAS_DATA_TYPES) dataType[name] = need(addressSpace.findDataType(name, i4aasIndex), name).nodeId;
  for (const name of V3_DATA_TYPES) dataType[name] = need(addressSpace.findDataType(name, v3Index), name).nodeId;
  const referenceType = (name: string, namespace?: number) =>
    need(addressSpace.findReferenceType(name, namespace), name).nodeId;
  return {
    addressSpace,
    i4aasIndex,
    v3Index,
    objectType,
    dataType,
    reference: {
      hasComponent: referenceType("HasComponent"),
      hasProperty: referenceType("HasProperty"),
      organizes: referenceType("Organizes"),
      hasTypeDefinition: referenceType("HasTypeDefinition"),
      aasReference: referenceType("AASReference", i4aasIndex),
    },
    propertyType: need(addressSpace.findVariableType("PropertyType"), "PropertyType").nodeId,
  };
}
