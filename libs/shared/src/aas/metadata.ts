/**
 * The `$metadata` form (API v3.0.1 clause 12.5; digest §i): the object serialized like normal JSON
 * minus its values and children. The same table drives the `$metadata` PATCH, which may change
 * everything except these attributes.
 *
 * Operation and Capability have no `$metadata` form: the v3.0.1 table says "nothing removed", but
 * the 3.1 applicability table and the IDTA test engine answer a 4xx for them, and clients test that.
 */

const OMITTED: Record<string, readonly string[]> = {
  Submodel: ["submodelElements"],
  SubmodelElementCollection: ["value"],
  // orderRelevant, semanticIdListElement, typeValueListElement, valueTypeListElement stay.
  SubmodelElementList: ["value"],
  Entity: ["statements", "globalAssetId", "specificAssetIds"],
  BasicEventElement: ["observed"],
  Property: ["value", "valueId"],
  MultiLanguageProperty: ["value", "valueId"],
  Range: ["min", "max"],
  ReferenceElement: ["value"],
  RelationshipElement: ["first", "second"],
  AnnotatedRelationshipElement: ["first", "second", "annotations"],
  // contentType stays: it is mandatory in the metamodel (Part 1), so a `$metadata` without it is
  // not a valid File/Blob for strict clients, and it describes the value rather than being it.
  Blob: ["value"],
  File: ["value"],
};

/** Whether the class (a Submodel or a submodel element kind) has a `$metadata` form. */
export function hasMetadata(object: Record<string, unknown>): boolean {
  return Object.hasOwn(OMITTED, String(object.modelType));
}

/** The attributes `$metadata` leaves out for this class ([] when it has no such form). */
export function metadataOmits(modelType: unknown): readonly string[] {
  return Object.hasOwn(OMITTED, String(modelType)) ? OMITTED[String(modelType)] : [];
}

/** A shallow copy without the value attributes and children. */
export function toMetadata(object: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...object };
  for (const key of metadataOmits(object.modelType)) delete copy[key];
  return copy;
}
