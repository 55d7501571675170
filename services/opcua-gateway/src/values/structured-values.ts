import { isPlainObject } from "@twinport/shared";
import {
  type AddressSpace,
  DataType,
  type ExtensionObject,
  type NodeId,
  type StatusCode,
  StatusCodes,
  Variant,
  VariantArrayType,
} from "node-opcua";
import { enumIndex, KEY_TYPES, REFERENCE_TYPES } from "./aas-enums.ts";

/** AAS Reference keys and SpecificAssetIds ↔ arrays of our structures (AASKeyDataType, AASSpecificAssetIdDataType). */
export interface StructureTypes {
  addressSpace: AddressSpace;
  key: NodeId;
  specificAssetId: NodeId;
}

type Json = Record<string, unknown>;

const nullVariant = () => new Variant({ dataType: DataType.Null });

function structureArray(items: ExtensionObject[]): Variant {
  return new Variant({ dataType: DataType.ExtensionObject, arrayType: VariantArrayType.Array, value: items });
}

/** The Keys of an AAS Reference (absent reference → null). */
export function keysVariant(types: StructureTypes, reference: unknown): Variant {
  if (!isPlainObject(reference) || !Array.isArray(reference.keys)) return nullVariant();
  return structureArray(
    reference.keys.filter(isPlainObject).map((key) =>
      types.addressSpace.constructExtensionObject(types.key, {
        type: Math.max(0, enumIndex(KEY_TYPES, key.type)),
        value: String(key.value ?? ""),
      }),
    ),
  );
}

/** The Type of an AAS Reference as our AASReferenceTypesDataType value. */
export function referenceTypeVariant(reference: unknown): Variant {
  const index = isPlainObject(reference) ? enumIndex(REFERENCE_TYPES, reference.type) : -1;
  return index < 0 ? nullVariant() : new Variant({ dataType: DataType.Int32, value: index });
}

export function specificAssetIdsVariant(types: StructureTypes, ids: unknown): Variant {
  if (!Array.isArray(ids)) return nullVariant();
  return structureArray(
    ids.filter(isPlainObject).map((id) =>
      types.addressSpace.constructExtensionObject(types.specificAssetId, {
        name: String(id.name ?? ""),
        value: String(id.value ?? ""),
      }),
    ),
  );
}

export type ReferenceOrError = { reference: Json | null } | { error: StatusCode; message: string };

/**
 * A written Keys array as an AAS Reference. An empty array or Null clears it. The reference type
 * follows the first key (GlobalReference → external, an identifiable → model) and otherwise stays
 * what it was: the client writes only Keys (spec §4.5), the store checks the rest.
 */
export function referenceFromKeys(
  types: StructureTypes,
  value: Variant,
  currentType: string | undefined,
): ReferenceOrError {
  if (value.dataType === DataType.Null) return { reference: null };
  if (value.dataType !== DataType.ExtensionObject || value.arrayType !== VariantArrayType.Array) {
    return { error: StatusCodes.BadTypeMismatch, message: "expected an array of AASKeyDataType" };
  }
  const keys: Json[] = [];
  for (const item of value.value as unknown[]) {
    const key = item as { type?: unknown; value?: unknown } | null;
    // A Key whose Type is no AASKeyTypesDataType value does not even decode: node-opcua hands it
    // over undecoded, still tagged with our Key encoding.
    if (isUndecodedKey(types, item))
      return { error: StatusCodes.BadOutOfRange, message: "a key type is not an AASKeyTypesDataType value" };
    if (key === null || typeof key.type !== "number" || typeof key.value !== "string") {
      return { error: StatusCodes.BadTypeMismatch, message: "expected AASKeyDataType items {Type, Value}" };
    }
    const type = KEY_TYPES[key.type];
    if (type === undefined)
      return { error: StatusCodes.BadOutOfRange, message: `key type ${key.type} is not an AASKeyTypesDataType value` };
    keys.push({ type, value: key.value });
  }
  if (keys.length === 0) return { reference: null };
  const first = keys[0].type;
  const type =
    first === "GlobalReference"
      ? "ExternalReference"
      : first === "AssetAdministrationShell" || first === "Submodel" || first === "ConceptDescription"
        ? "ModelReference"
        : (currentType ?? "ExternalReference");
  return { reference: { type, keys } };
}

function isUndecodedKey(types: StructureTypes, item: unknown): boolean {
  const encoding = types.addressSpace.findDataType(types.key)?.binaryEncodingNodeId;
  const nodeId = (item as { buffer?: unknown; nodeId?: NodeId } | null)?.nodeId;
  return (
    encoding != null &&
    nodeId !== undefined &&
    Buffer.isBuffer((item as { buffer?: unknown }).buffer) &&
    nodeId.namespace === encoding.namespace &&
    nodeId.value === encoding.value
  );
}
