import type { ElementJson } from "../../aas/index.ts";
import type { ChildSeparator, ElementScope } from "./id-short-path-scope.ts";

/**
 * How a partial READ scope shows the element at `path` (docs/security.md "Reading part of a
 * submodel"): `whole` when a grant covers it; `container` when it lies on the way to a granted
 * element AND is of a kind that can hold it (a collection, Entity or AnnotatedRelationshipElement
 * for `C.Ok`, a list for `L[0]`); otherwise not at all. The scope knows only paths: a grant on
 * `C.Ok` where `C` is a Property once showed that Property whole, with its value (a black-box
 * finding). Every reader asks here: the element filter, the single-element read check, `$path`
 * lists, /events and the OPC UA node permissions.
 */
export type ElementShown = "whole" | "container" | undefined;

export function elementShown(scope: ElementScope, path: string, modelType: unknown): ElementShown {
  if (scope.covers(path)) return "whole";
  const via = childSeparatorOf(modelType);
  return via !== undefined && scope.leadsBelow(path, via) ? "container" : undefined;
}

/**
 * elementShown for a stored record (its path and own JSON), reading the JSON only for a path on
 * the way: lists of paths test every record.
 */
export function recordShown(scope: ElementScope, record: { path: string; json: string }): boolean {
  if (scope.covers(record.path)) return true;
  if (!scope.leadsBelow(record.path)) return false;
  return elementShown(scope, record.path, (JSON.parse(record.json) as ElementJson).modelType) !== undefined;
}

function childSeparatorOf(modelType: unknown): ChildSeparator | undefined {
  switch (modelType) {
    case "SubmodelElementCollection":
    case "Entity":
    case "AnnotatedRelationshipElement":
      return ".";
    case "SubmodelElementList":
      return "[";
    default:
      return undefined;
  }
}

/**
 * Attributes that are a container's own value rather than its structure. Shown on the way, it is
 * shown only as the holder of what is granted: an Entity's asset ids or an annotated
 * relationship's first and second are not a statement's or an annotation's to show. (An
 * AnnotatedRelationshipElement without first and second is not valid AAS JSON; the reader still
 * learns nothing the rules hide.) The OPC UA gateway withholds the same attributes' nodes.
 */
export const CONTAINER_OWN_VALUES: Readonly<Record<string, readonly string[]>> = {
  Entity: ["globalAssetId", "specificAssetIds"],
  AnnotatedRelationshipElement: ["first", "second"],
};

/** The element without its own value (CONTAINER_OWN_VALUES): what a container on the way shows. */
export function asContainerOnTheWay(element: ElementJson): ElementJson {
  const own = CONTAINER_OWN_VALUES[String(element.modelType)];
  if (own === undefined) return element;
  const shown = { ...element };
  for (const key of own) delete shown[key];
  return shown;
}
