import { isPlainObject, referenceKeyValues } from "@twinport/shared";
import { ASSET_KINDS, enumIndex, MODELLING_KINDS } from "../values/aas-enums.ts";
import { specificAssetIdsVariant } from "../values/structured-values.ts";
import { elementSpec } from "./element-specs.ts";
import { identifiableNodeId, subNodeId } from "./node-ids.ts";
import type { NodeSpec, ObjectSpec } from "./node-spec.ts";
import {
  enumVariable,
  firstText,
  good,
  type Json,
  metadataChildren,
  referenceObject,
  type SpecContext,
  stringVariable,
  variable,
} from "./spec-context.ts";

const SHELL_FACTS = Object.freeze({ kind: "shell" as const, semanticIds: [] });
const CONCEPT_DESCRIPTION_FACTS = Object.freeze({ kind: "concept-description" as const, semanticIds: [] });

/** Shells, submodels and concept descriptions hang below AASEnvironment, organized by it. */
function identifiable(
  ctx: SpecContext,
  json: Json,
  typeDefinition: ObjectSpec["typeDefinition"],
  children: Iterable<NodeSpec>,
): ObjectSpec {
  const id = String(json.id);
  const nodeId = identifiableNodeId(id);
  return {
    class: "object",
    nodeId,
    // A concept description (or anything) without idShort is named by its id (spec §4.5).
    name: typeof json.idShort === "string" && json.idShort !== "" ? json.idShort : id,
    nameSpace: "v3",
    typeDefinition,
    reference: "organizes",
    description: firstText(json.description),
    children: (function* () {
      yield stringVariable(nodeId, "Id", id);
      yield* metadataChildren(ctx, nodeId, json);
      yield* children;
    })(),
  };
}

export function submodelSpec(ctx: SpecContext, submodel: Json): ObjectSpec {
  const id = String(submodel.id);
  const nodeId = identifiableNodeId(id);
  // A new object per build: sessions notice the change and decide again (a new semanticId).
  ctx.catalog?.set(id, { kind: "submodel", semanticIds: referenceKeyValues(submodel.semanticId) });
  const elements = Array.isArray(submodel.submodelElements) ? submodel.submodelElements.filter(isPlainObject) : [];
  return identifiable(
    ctx,
    submodel,
    ctx.types.objectType.AASSubmodelType,
    (function* () {
      yield enumVariable(
        nodeId,
        "ModelingKind",
        ctx.types.dataType.AASModelingKindDataType,
        enumIndex(MODELLING_KINDS, submodel.kind ?? "Instance"),
      );
      // One element's spec at a time: built, turned into nodes, dropped.
      for (const element of elements) yield elementSpec(ctx, id, element, String(element.idShort));
    })(),
  );
}

export function shellSpec(ctx: SpecContext, shell: Json): ObjectSpec {
  ctx.catalog?.set(String(shell.id), SHELL_FACTS);
  const nodeId = identifiableNodeId(String(shell.id));
  const children: NodeSpec[] = [];
  if (isPlainObject(shell.assetInformation)) children.push(assetInformation(ctx, nodeId, shell.assetInformation));
  if (isPlainObject(shell.derivedFrom)) children.push(referenceObject(ctx, nodeId, "DerivedFrom", shell.derivedFrom));
  const submodels = Array.isArray(shell.submodels) ? shell.submodels.filter(isPlainObject) : [];
  const listId = subNodeId(nodeId, "Submodels");
  children.push({
    class: "object",
    nodeId: listId,
    name: "Submodels",
    nameSpace: "v3",
    typeDefinition: ctx.types.objectType.FolderType,
    // Each reference is named by the submodel id it points to and linked (AASReference) to that
    // submodel's node when the gateway has it.
    children: submodels.map((reference, index) => {
      const target = submodelIdOf(reference);
      const spec = referenceObject(
        ctx,
        listId,
        target ?? String(index),
        reference,
        undefined,
        subNodeId(listId, String(index)),
      );
      return target === undefined ? spec : { ...spec, refersTo: [identifiableNodeId(target)] };
    }),
  });
  return identifiable(ctx, shell, ctx.types.objectType.AASAssetAdministrationShellType, children);
}

export function conceptDescriptionSpec(ctx: SpecContext, conceptDescription: Json): ObjectSpec {
  ctx.catalog?.set(String(conceptDescription.id), CONCEPT_DESCRIPTION_FACTS);
  const nodeId = identifiableNodeId(String(conceptDescription.id));
  const isCaseOf = Array.isArray(conceptDescription.isCaseOf) ? conceptDescription.isCaseOf.filter(isPlainObject) : [];
  const children: NodeSpec[] = isCaseOf.map((reference, index) =>
    referenceObject(ctx, nodeId, `IsCaseOf[${index}]`, reference),
  );
  return identifiable(ctx, conceptDescription, ctx.types.objectType.AASConceptDescriptionType, children);
}

function assetInformation(ctx: SpecContext, parentNodeId: string, info: Json): ObjectSpec {
  const nodeId = subNodeId(parentNodeId, "AssetInformation");
  const children: NodeSpec[] = [
    enumVariable(nodeId, "AssetKind", ctx.types.dataType.AASAssetKindDataType, enumIndex(ASSET_KINDS, info.assetKind)),
    stringVariable(nodeId, "GlobalAssetId", info.globalAssetId),
    variable(
      nodeId,
      "SpecificAssetId",
      ctx.types.dataType.AASSpecificAssetIdDataType,
      good(specificAssetIdsVariant(ctx.structures, info.specificAssetIds)),
      { valueRank: 1 },
    ),
  ];
  if (typeof info.assetType === "string") children.push(stringVariable(nodeId, "AssetType", info.assetType));
  if (isPlainObject(info.defaultThumbnail)) {
    children.push(stringVariable(nodeId, "DefaultThumbnail", info.defaultThumbnail.path));
    children.push(stringVariable(nodeId, "DefaultThumbnailContentType", info.defaultThumbnail.contentType));
  }
  return {
    class: "object",
    nodeId,
    name: "AssetInformation",
    nameSpace: "v3",
    typeDefinition: ctx.types.objectType.AASAssetInformationType,
    children,
  };
}

function submodelIdOf(reference: Json): string | undefined {
  const keys = Array.isArray(reference.keys) ? reference.keys.filter(isPlainObject) : [];
  const key = keys.find((candidate) => candidate.type === "Submodel") ?? keys.at(-1);
  return key && typeof key.value === "string" ? key.value : undefined;
}
