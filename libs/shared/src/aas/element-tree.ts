import type { PathSegment } from "./id-short-path.ts";

/**
 * Navigation and edits on AAS JSON (plain jsonable objects, as stored and as sent), for the
 * model in memory and for payloads. Children live under "value" (SubmodelElementCollection,
 * SubmodelElementList), "statements" (Entity) or "annotations" (AnnotatedRelationshipElement).
 *
 * The edit functions also accept a Submodel as parent (its children are "submodelElements"), so
 * top-level elements are edited the same way as nested ones.
 *
 * aas-core's verification rejects empty child lists ("either not set or at least one item"), so
 * an edit that removes the last child removes the key as well.
 */

export type ElementJson = Record<string, unknown>;

export type ChildrenKey = "value" | "statements" | "annotations";

export function childrenKey(element: ElementJson): ChildrenKey | undefined {
  switch (element.modelType) {
    case "SubmodelElementCollection":
    case "SubmodelElementList":
      return "value";
    case "Entity":
      return "statements";
    case "AnnotatedRelationshipElement":
      return "annotations";
    default:
      return undefined;
  }
}

/** childrenKey, extended to a Submodel parent. */
export function containerKey(parent: ElementJson): ChildrenKey | "submodelElements" | undefined {
  return parent.modelType === "Submodel" ? "submodelElements" : childrenKey(parent);
}

export function isList(element: ElementJson): boolean {
  return element.modelType === "SubmodelElementList";
}

/** The children of a container (or a Submodel); [] for anything else. Not a copy. */
export function getChildren(element: ElementJson): ElementJson[] {
  const key = containerKey(element);
  const children = key === undefined ? undefined : element[key];
  return Array.isArray(children) ? (children as ElementJson[]) : [];
}

/** The element at `segments` below `roots` (a submodel's elements), or undefined. */
export function findByPath(roots: ElementJson[], segments: PathSegment[]): ElementJson | undefined {
  let children = roots;
  let current: ElementJson | undefined;
  for (const segment of segments) {
    const inList = current !== undefined && isList(current);
    if ("index" in segment) {
      // Only list items are addressed by index; top-level elements never are.
      current = inList ? children[segment.index] : undefined;
    } else {
      current = inList ? undefined : children.find((child) => child.idShort === segment.idShort);
    }
    if (current === undefined) return undefined;
    children = getChildren(current);
  }
  return current;
}

/** Appends `child`; returns its position (for a SubmodelElementList, its new index). */
export function insertChild(parent: ElementJson, child: ElementJson): number {
  const children = ownChildren(parent, true);
  children.push(child);
  return children.length - 1;
}

export function replaceChild(parent: ElementJson, segment: PathSegment, child: ElementJson): void {
  const children = ownChildren(parent, false);
  children[positionOf(parent, children, segment)] = child;
}

/** Removes the child; later items of a list move up one index. */
export function deleteChild(parent: ElementJson, segment: PathSegment): void {
  const children = ownChildren(parent, false);
  children.splice(positionOf(parent, children, segment), 1);
  if (children.length === 0) delete parent[containerKey(parent)!];
}

/** The indexes of a list's items: 0 … n-1. */
export function listIndexes(list: ElementJson): number[] {
  return getChildren(list).map((_, index) => index);
}

function ownChildren(parent: ElementJson, create: boolean): ElementJson[] {
  const key = containerKey(parent);
  if (key === undefined) throw new TypeError(`A ${String(parent.modelType)} has no child elements`);
  const existing = parent[key];
  if (Array.isArray(existing)) return existing as ElementJson[];
  const children: ElementJson[] = [];
  if (create) parent[key] = children;
  return children;
}

function positionOf(parent: ElementJson, children: ElementJson[], segment: PathSegment): number {
  if ("index" in segment) {
    if (!isList(parent)) throw new RangeError(`Index [${segment.index}] used on a ${String(parent.modelType)}`);
    if (segment.index >= children.length) throw new RangeError(`No list item [${segment.index}]`);
    return segment.index;
  }
  const position = isList(parent) ? -1 : children.findIndex((child) => child.idShort === segment.idShort);
  if (position < 0) throw new RangeError(`No child "${segment.idShort}"`);
  return position;
}
