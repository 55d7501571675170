import { childPath, getChildren, isList, isPlainObject } from "@twinport/shared";
import { Argument, coerceLocalizedText, DataType, Variant, VariantArrayType } from "node-opcua";
import { ENTITY_TYPES, enumIndex, XSD_TYPES } from "../values/aas-enums.ts";
import { lexicalToNodeValue, opcuaDataTypeOf } from "../values/datatype-mapping.ts";
import { specificAssetIdsVariant } from "../values/structured-values.ts";
import type { WriteBinding, WriteTarget } from "../values/write-binding.ts";
import { elementNodeId, subNodeId } from "./node-ids.ts";
import type { MethodSpec, NodeSpec, ObjectSpec } from "./node-spec.ts";
import {
  basicType,
  enumVariable,
  firstText,
  good,
  type Json,
  metadataChildren,
  referenceObject,
  type SpecContext,
  scalar,
  stringVariable,
  variable,
} from "./spec-context.ts";

/**
 * A submodel element (AAS JSON, with its children) as the NodeSpec of its subtree (docs/reference/opcua-mapping.md
 * layout): an object of the I4AAS element type (ours for SubmodelElementList and
 * BasicEventElement), its metadata as read-only properties and its value as the writable nodes of
 * spec §4.5. The NodeIds come from the submodel id and the idShortPath, so the same element always
 * gets the same NodeIds, wherever and whenever it is built.
 */
export function elementSpec(ctx: SpecContext, submodelId: string, element: Json, path: string): ObjectSpec {
  const nodeId = elementNodeId(submodelId, path);
  const name = lastSegment(path);
  const children = metadataChildren(ctx, nodeId, element);
  const write = (target: WriteTarget): WriteBinding | undefined =>
    ctx.writable
      ? {
          writer: ctx.writer,
          structures: ctx.structures,
          submodelId,
          idShortPath: path,
          ...(typeof element.idShort === "string" ? { idShort: element.idShort } : {}),
          target,
        }
      : undefined;
  const childElements = (): NodeSpec[] =>
    getChildren(element)
      .filter(isPlainObject)
      .map((child, index) => elementSpec(ctx, submodelId, child, childPathOf(path, element, child, index)));
  const { types } = ctx;
  let typeDefinition = types.objectType.BaseObjectType;

  switch (element.modelType) {
    case "Property": {
      typeDefinition = types.objectType.AASPropertyType;
      children.push(
        valueType(ctx, nodeId, element.valueType),
        typedValue(
          nodeId,
          "Value",
          element.value,
          element.valueType,
          write({ field: "value", valueType: element.valueType }),
        ),
      );
      if (isPlainObject(element.valueId)) children.push(referenceObject(ctx, nodeId, "ValueId", element.valueId));
      break;
    }
    case "Range":
      typeDefinition = types.objectType.AASRangeType;
      children.push(
        valueType(ctx, nodeId, element.valueType),
        typedValue(
          nodeId,
          "Min",
          element.min,
          element.valueType,
          write({ field: "min", valueType: element.valueType }),
        ),
        typedValue(
          nodeId,
          "Max",
          element.max,
          element.valueType,
          write({ field: "max", valueType: element.valueType }),
        ),
      );
      break;
    case "Blob":
      typeDefinition = types.objectType.AASBlobType;
      children.push(
        stringVariable(nodeId, "ContentType", element.contentType),
        variable(
          nodeId,
          "Value",
          basicType(DataType.ByteString),
          scalar(
            DataType.ByteString,
            typeof element.value === "string" ? Buffer.from(element.value, "base64") : undefined,
          ),
          {
            write: write({ field: "blob" }),
          },
        ),
      );
      break;
    case "File":
      typeDefinition = types.objectType.AASFileType;
      children.push(
        stringVariable(nodeId, "ContentType", element.contentType),
        stringVariable(nodeId, "Value", element.value),
      );
      break;
    case "MultiLanguageProperty":
      typeDefinition = types.objectType.AASMultiLanguagePropertyType;
      children.push(
        variable(nodeId, "Value", basicType(DataType.LocalizedText), good(localizedTexts(element.value)), {
          valueRank: 1,
          write: write({ field: "multi-language" }),
        }),
      );
      if (isPlainObject(element.valueId)) children.push(referenceObject(ctx, nodeId, "ValueId", element.valueId));
      break;
    case "ReferenceElement":
      typeDefinition = types.objectType.AASReferenceElementType;
      children.push(
        referenceObject(
          ctx,
          nodeId,
          "Value",
          element.value,
          write({ field: "reference", referenceType: referenceTypeOf(element.value) }),
        ),
      );
      break;
    case "RelationshipElement":
    case "AnnotatedRelationshipElement":
      typeDefinition =
        element.modelType === "RelationshipElement"
          ? types.objectType.AASRelationshipElementType
          : types.objectType.AASAnnotatedRelationshipElementType;
      children.push(
        referenceObject(
          ctx,
          nodeId,
          "First",
          element.first,
          write({ field: "first", referenceType: referenceTypeOf(element.first) }),
        ),
        referenceObject(
          ctx,
          nodeId,
          "Second",
          element.second,
          write({ field: "second", referenceType: referenceTypeOf(element.second) }),
        ),
      );
      if (element.modelType === "AnnotatedRelationshipElement")
        children.push(container(ctx, nodeId, "Annotation", childElements()));
      break;
    case "Entity":
      typeDefinition = types.objectType.AASEntityType;
      children.push(
        enumVariable(
          nodeId,
          "EntityType",
          types.dataType.AASEntityTypeDataType,
          enumIndex(ENTITY_TYPES, element.entityType),
          write({ field: "entity-type" }),
        ),
        variable(
          nodeId,
          "GlobalAssetId",
          basicType(DataType.String),
          scalar(DataType.String, typeof element.globalAssetId === "string" ? element.globalAssetId : undefined),
          {
            write: write({ field: "global-asset-id" }),
          },
        ),
        variable(
          nodeId,
          "SpecificAssetId",
          types.dataType.AASSpecificAssetIdDataType,
          good(specificAssetIdsVariant(ctx.structures, element.specificAssetIds)),
          { valueRank: 1 },
        ),
        container(ctx, nodeId, "Statement", childElements()),
      );
      break;
    case "SubmodelElementCollection":
      typeDefinition = types.objectType.AASSubmodelElementCollectionType;
      children.push(...childElements());
      break;
    case "SubmodelElementList":
      typeDefinition = types.objectType.AASSubmodelElementListType;
      children.push(
        variable(
          nodeId,
          "OrderRelevant",
          basicType(DataType.Boolean),
          scalar(DataType.Boolean, typeof element.orderRelevant === "boolean" ? element.orderRelevant : true),
        ),
        stringVariable(nodeId, "TypeValueListElement", element.typeValueListElement),
      );
      if (element.valueTypeListElement !== undefined)
        children.push(
          enumVariable(
            nodeId,
            "ValueTypeListElement",
            types.dataType.AASDataTypeDefXsdDataType,
            enumIndex(XSD_TYPES, element.valueTypeListElement),
          ),
        );
      if (isPlainObject(element.semanticIdListElement))
        children.push(referenceObject(ctx, nodeId, "SemanticIdListElement", element.semanticIdListElement));
      children.push(...childElements());
      break;
    case "Operation":
      typeDefinition = types.objectType.AASOperationType;
      children.push(operationMethod(ctx, submodelId, path, nodeId, element));
      break;
    case "Capability":
      typeDefinition = types.objectType.AASCapabilityType;
      break;
    case "BasicEventElement":
      typeDefinition = types.objectType.AASBasicEventElementType;
      children.push(
        referenceObject(ctx, nodeId, "Observed", element.observed),
        stringVariable(nodeId, "Direction", element.direction),
        stringVariable(nodeId, "State", element.state),
      );
      if (typeof element.messageTopic === "string")
        children.push(stringVariable(nodeId, "MessageTopic", element.messageTopic));
      break;
  }
  return {
    class: "object",
    nodeId,
    name,
    nameSpace: "v3",
    typeDefinition,
    description: firstText(element.description),
    children,
  };
}

/** idShortPath of a child: list items by index (their idShort, if any, is not part of paths). */
function childPathOf(parentPath: string, parent: Json, child: Json, index: number): string {
  return isList(parent) ? childPath(parentPath, { index }) : childPath(parentPath, { idShort: String(child.idShort) });
}

function lastSegment(path: string): string {
  const cut = Math.max(path.lastIndexOf("."), path.lastIndexOf("["));
  return cut < 0 ? path : path[cut] === "." ? path.slice(cut + 1) : path.slice(cut);
}

function valueType(ctx: SpecContext, nodeId: string, xsd: unknown) {
  return enumVariable(nodeId, "ValueType", ctx.types.dataType.AASDataTypeDefXsdDataType, enumIndex(XSD_TYPES, xsd));
}

function typedValue(nodeId: string, name: string, lexical: unknown, xsd: unknown, write: WriteBinding | undefined) {
  return variable(
    nodeId,
    name,
    basicType(opcuaDataTypeOf(xsd)),
    lexicalToNodeValue(typeof lexical === "string" ? lexical : undefined, xsd),
    { write },
  );
}

function localizedTexts(texts: unknown): Variant {
  if (!Array.isArray(texts)) return new Variant({ dataType: DataType.Null });
  const value = texts
    .filter(isPlainObject)
    .map((text) => coerceLocalizedText({ locale: String(text.language ?? ""), text: String(text.text ?? "") })!);
  return new Variant({ dataType: DataType.LocalizedText, arrayType: VariantArrayType.Array, value });
}

function referenceTypeOf(reference: unknown): string | undefined {
  return isPlainObject(reference) && typeof reference.type === "string" ? reference.type : undefined;
}

/** A plain object grouping child elements (Entity statements, annotations). */
function container(ctx: SpecContext, parentNodeId: string, name: string, children: NodeSpec[]): ObjectSpec {
  return {
    class: "object",
    nodeId: subNodeId(parentNodeId, name),
    name,
    nameSpace: "v3",
    typeDefinition: ctx.types.objectType.BaseObjectType,
    children,
  };
}

/**
 * The method of an Operation, named after its idShort. Arguments come from the Property variables
 * (datatype table of §4.5); other variable kinds travel as ValueOnly JSON strings; in-out variables
 * are not supported (spec §4.5) and are left out.
 */
function operationMethod(
  ctx: SpecContext,
  submodelId: string,
  path: string,
  nodeId: string,
  operation: Json,
): MethodSpec {
  const argumentsOf = (variables: unknown): Argument[] =>
    (Array.isArray(variables) ? variables : [])
      .map((variable) => (isPlainObject(variable) && isPlainObject(variable.value) ? variable.value : undefined))
      .filter((element): element is Json => element !== undefined)
      .map(
        (element) =>
          new Argument({
            name: String(element.idShort ?? ""),
            dataType: basicType(
              element.modelType === "Property" ? opcuaDataTypeOf(element.valueType) : DataType.String,
            ),
            valueRank: -1,
            ...(firstText(element.description) ? { description: firstText(element.description) } : {}),
          }),
      );
  return {
    class: "method",
    nodeId: subNodeId(nodeId, "Invoke"),
    name: lastSegment(path),
    nameSpace: "v3",
    inputArguments: argumentsOf(operation.inputVariables),
    outputArguments: argumentsOf(operation.outputVariables),
    operation: { submodelId, idShortPath: path, callable: ctx.writable, invoke: ctx.invoke },
  };
}
