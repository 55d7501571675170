import { KEY_TYPE_NAMES } from "@twinport/shared";
/**
 * The enumerations of the AAS nodesets, in their OPC UA order (value = index). They mirror
 * twinport-aas-v3.NodeSet2.xml (ours) and I4AAS (EntityType, ModelingKind, which v3 kept).
 */
/** twinport-aas-v3.NodeSet2.xml lists the key types in the metamodel order aas-core gives. */
export const KEY_TYPES = KEY_TYPE_NAMES;

export const REFERENCE_TYPES = ["ExternalReference", "ModelReference"] as const;

export const XSD_TYPES = [
  "xs:anyURI",
  "xs:base64Binary",
  "xs:boolean",
  "xs:byte",
  "xs:date",
  "xs:dateTime",
  "xs:decimal",
  "xs:double",
  "xs:duration",
  "xs:float",
  "xs:gDay",
  "xs:gMonth",
  "xs:gMonthDay",
  "xs:gYear",
  "xs:gYearMonth",
  "xs:hexBinary",
  "xs:int",
  "xs:integer",
  "xs:long",
  "xs:negativeInteger",
  "xs:nonNegativeInteger",
  "xs:nonPositiveInteger",
  "xs:positiveInteger",
  "xs:short",
  "xs:string",
  "xs:time",
  "xs:unsignedByte",
  "xs:unsignedInt",
  "xs:unsignedLong",
  "xs:unsignedShort",
] as const;

export const ASSET_KINDS = ["Type", "Instance", "NotApplicable"] as const;
export const ENTITY_TYPES = ["CoManagedEntity", "SelfManagedEntity"] as const;
export const MODELLING_KINDS = ["Template", "Instance"] as const;

/** The enum value of `name` in `list`, or -1. */
export function enumIndex(list: readonly string[], name: unknown): number {
  return typeof name === "string" ? list.indexOf(name) : -1;
}
