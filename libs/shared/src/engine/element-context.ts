import { type ElementJson, getChildren, isList, shallowOf, withArticle, withoutBlobValues } from "../aas/index.ts";
import { CommandError } from "../contracts/index.ts";
import { readJsonable } from "./aas-input.ts";

const CONTAINER_TYPES = new Set([
  "SubmodelElementCollection",
  "SubmodelElementList",
  "Entity",
  "AnnotatedRelationshipElement",
]);

export function isContainer(element: ElementJson): boolean {
  return CONTAINER_TYPES.has(element.modelType as string);
}

/**
 * Constraints that depend on the parent (idShort required outside lists and forbidden inside them,
 * list item type/valueType/semanticId, annotations being data elements) are checked by verifying the
 * parent's shallow record together with the new child: cheap, and independent of sibling count.
 * Uniqueness among siblings is a commit precondition instead (the new path must not exist).
 * The child was read and verified whole before (readBody); here its Blobs go without their bytes,
 * which no constraint looks at: a 30 MB Blob was otherwise decoded and encoded a second time.
 */
export function checkChildInSubmodel(submodel: Record<string, unknown>, child: ElementJson, validate: boolean): void {
  if (typeof child.idShort !== "string")
    throw new CommandError("validation", "A submodel element directly below a submodel needs an idShort (AASd-117)");
  if (validate) readJsonable({ ...submodel, submodelElements: [withoutBlobValues(child)] }, "Submodel", true);
}

export function checkChildInParent(parent: ElementJson, child: ElementJson, validate: boolean): void {
  if (!isContainer(parent)) {
    throw new CommandError(
      "bad-request",
      `${withArticle(String(parent.modelType), true)} cannot contain submodel elements`,
    );
  }
  if (!isList(parent) && typeof child.idShort !== "string") {
    throw new CommandError(
      "validation",
      "A submodel element outside a SubmodelElementList needs an idShort (AASd-117)",
    );
  }
  if (validate) {
    const key =
      parent.modelType === "Entity"
        ? "statements"
        : parent.modelType === "AnnotatedRelationshipElement"
          ? "annotations"
          : "value";
    readJsonable({ ...shallowOf(parent), [key]: [withoutBlobValues(child)] }, "SubmodelElement", true);
  }
}

/** Children of a freshly read element, for flattening below its own path. */
export function childrenOf(element: ElementJson): { children: ElementJson[]; list: boolean } {
  return { children: getChildren(element), list: isList(element) };
}
