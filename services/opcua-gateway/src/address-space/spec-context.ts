import { isPlainObject } from "@twinport/shared";
import {
  coerceLocalizedText,
  DataType,
  type LocalizedText,
  NodeId,
  NodeIdType,
  StatusCodes,
  Variant,
} from "node-opcua";
import type { OperationInvoker } from "../methods/operation-method.ts";
import { enumIndex, XSD_TYPES } from "../values/aas-enums.ts";
import type { NodeValue } from "../values/datatype-mapping.ts";
import { keysVariant, referenceTypeVariant, type StructureTypes } from "../values/structured-values.ts";
import type { ValueWriter, WriteBinding } from "../values/write-binding.ts";
import type { AasTypes } from "./aas-types.ts";
import { subNodeId } from "./node-ids.ts";
import type { NameSpace, NodeSpec, ObjectSpec, VariableSpec } from "./node-spec.ts";

/** Everything the AAS → NodeSpec mapping needs besides the AAS JSON. */
export interface SpecContext {
  types: AasTypes;
  structures: StructureTypes;
  writer: ValueWriter;
  /** False on a read-only endpoint (only *_READ profiles): no value node is writable, no method callable. */
  writable: boolean;
  invoke: OperationInvoker;
  /** Filled as identifiables are built, when access rules apply (security/node-access.ts). */
  catalog?: import("../security/node-access.ts").IdentifiableCatalog;
}

export type Json = Record<string, unknown>;

/** Browse names I4AAS defines; every other fixed name lives in our namespace. */
const I4AAS_NAMES = new Set([
  "Category",
  "Value",
  "ValueType",
  "ValueId",
  "Min",
  "Max",
  "First",
  "Second",
  "EntityType",
  "Keys",
  "Administration",
  "Version",
  "Revision",
  "ModelingKind",
  "Type",
  "DerivedFrom",
  "AllowDuplicates",
]);

export function nameSpaceOf(name: string): NameSpace {
  return I4AAS_NAMES.has(name) ? "i4aas" : "v3";
}

export function basicType(dataType: DataType): NodeId {
  // The built-in DataType numbers are their NodeIds in namespace 0.
  return new NodeId(NodeIdType.NUMERIC, dataType, 0);
}

export const good = (variant: Variant): NodeValue => ({ variant, statusCode: StatusCodes.Good });

export function scalar(dataType: DataType, value: unknown): NodeValue {
  return good(
    value === undefined || value === null ? new Variant({ dataType: DataType.Null }) : new Variant({ dataType, value }),
  );
}

export function variable(
  parentNodeId: string,
  name: string,
  dataType: NodeId,
  value: NodeValue,
  options: { valueRank?: -1 | 1; write?: WriteBinding } = {},
): VariableSpec {
  return {
    class: "variable",
    nodeId: subNodeId(parentNodeId, name),
    name,
    nameSpace: nameSpaceOf(name),
    dataType,
    valueRank: options.valueRank ?? -1,
    value,
    ...(options.write ? { write: options.write } : {}),
  };
}

export function stringVariable(parentNodeId: string, name: string, value: unknown): VariableSpec {
  return variable(
    parentNodeId,
    name,
    basicType(DataType.String),
    scalar(DataType.String, typeof value === "string" ? value : undefined),
  );
}

/** An enum-typed variable: Int32 value = the enum index (-1 / absent → null). */
export function enumVariable(
  parentNodeId: string,
  name: string,
  dataType: NodeId,
  index: number,
  write?: WriteBinding,
): VariableSpec {
  return variable(parentNodeId, name, dataType, scalar(DataType.Int32, index < 0 ? undefined : index), { write });
}

/** An AAS Reference as an AASReferenceType object: Type (read-only) and Keys (writable when `write` is given). */
export function referenceObject(
  ctx: SpecContext,
  parentNodeId: string,
  name: string,
  reference: unknown,
  write?: WriteBinding,
  nodeId = subNodeId(parentNodeId, name),
): ObjectSpec {
  return {
    class: "object",
    nodeId,
    name,
    nameSpace: nameSpaceOf(name),
    typeDefinition: ctx.types.objectType.AASReferenceType,
    children: [
      variable(nodeId, "Type", ctx.types.dataType.AASReferenceTypesDataType, good(referenceTypeVariant(reference))),
      variable(nodeId, "Keys", ctx.types.dataType.AASKeyDataType, good(keysVariant(ctx.structures, reference)), {
        valueRank: 1,
        write,
      }),
    ],
  };
}

/** The first text of a LangStringSet, English preferred (OPC UA node descriptions hold one text). */
export function firstText(texts: unknown): LocalizedText | undefined {
  if (!Array.isArray(texts)) return undefined;
  const items = texts.filter(isPlainObject);
  const chosen = items.find((item) => item.language === "en") ?? items[0];
  return chosen && typeof chosen.text === "string"
    ? coerceLocalizedText({ locale: String(chosen.language ?? ""), text: chosen.text })!
    : undefined;
}

/** Category, SemanticId, Administration and Qualifiers: present only when the AAS object has them. */
export function metadataChildren(ctx: SpecContext, nodeId: string, referable: Json): NodeSpec[] {
  const children: NodeSpec[] = [];
  if (typeof referable.category === "string") children.push(stringVariable(nodeId, "Category", referable.category));
  if (isPlainObject(referable.semanticId))
    children.push(referenceObject(ctx, nodeId, "SemanticId", referable.semanticId));
  if (isPlainObject(referable.administration)) children.push(administration(ctx, nodeId, referable.administration));
  if (Array.isArray(referable.qualifiers) && referable.qualifiers.length > 0)
    children.push(qualifiers(ctx, nodeId, referable.qualifiers.filter(isPlainObject)));
  return children;
}

function administration(ctx: SpecContext, parentNodeId: string, administration: Json): ObjectSpec {
  const nodeId = subNodeId(parentNodeId, "Administration");
  const children: NodeSpec[] = [];
  for (const [key, name] of [
    ["version", "Version"],
    ["revision", "Revision"],
    ["templateId", "TemplateId"],
  ] as const) {
    if (typeof administration[key] === "string") children.push(stringVariable(nodeId, name, administration[key]));
  }
  if (isPlainObject(administration.creator))
    children.push(referenceObject(ctx, nodeId, "Creator", administration.creator));
  return {
    class: "object",
    nodeId,
    name: "Administration",
    nameSpace: "i4aas",
    typeDefinition: ctx.types.objectType.AASAdministrativeInformationType,
    children,
  };
}

function qualifiers(ctx: SpecContext, parentNodeId: string, list: Json[]): ObjectSpec {
  const nodeId = subNodeId(parentNodeId, "Qualifier");
  return {
    class: "object",
    nodeId,
    name: "Qualifier",
    nameSpace: "v3",
    typeDefinition: ctx.types.objectType.BaseObjectType,
    // Qualifiers have no idShort: position plus type name them, as the AAS JSON orders them.
    children: list.map((qualifier, index) => {
      const qualifierId = subNodeId(nodeId, String(index));
      return {
        class: "object",
        nodeId: qualifierId,
        name: typeof qualifier.type === "string" ? qualifier.type : String(index),
        nameSpace: "v3",
        typeDefinition: ctx.types.objectType.AASQualifierType,
        children: [
          stringVariable(qualifierId, "Type", qualifier.type),
          enumVariable(
            qualifierId,
            "ValueType",
            ctx.types.dataType.AASDataTypeDefXsdDataType,
            enumIndex(XSD_TYPES, qualifier.valueType),
          ),
          stringVariable(qualifierId, "Value", qualifier.value),
        ],
      } satisfies ObjectSpec;
    }),
  };
}
