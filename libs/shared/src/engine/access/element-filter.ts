import { childrenKey, type ElementJson, isList } from "../../aas/index.ts";
import { asContainerOnTheWay, elementShown } from "./element-on-the-way.ts";
import type { ElementScope } from "./id-short-path-scope.ts";

/**
 * The parts of assembled elements a partial READ scope shows (id-short-path-scope.ts): an element
 * outside it is left out with everything below; an ancestor of a granted prefix that can hold it
 * keeps only the children on the way and none of its own value (element-on-the-way.ts). List
 * items keep the index they have in the store for the check, so a filtered list may have gaps the
 * reader does not see (documented in docs/security.md).
 */
export function filterElements(
  elements: readonly ElementJson[],
  scope: ElementScope,
  parentPath: string,
  parentIsList = false,
): ElementJson[] {
  const shown: ElementJson[] = [];
  elements.forEach((element, index) => {
    const path = parentIsList
      ? `${parentPath}[${index}]`
      : parentPath === ""
        ? String(element.idShort)
        : `${parentPath}.${String(element.idShort)}`;
    const filtered = filterElement(element, scope, path);
    if (filtered !== undefined) shown.push(filtered);
  });
  return shown;
}

/** One element at `path` as the scope shows it, or undefined when it is not shown at all. */
export function filterElement(element: ElementJson, scope: ElementScope, path: string): ElementJson | undefined {
  const shown = elementShown(scope, path, element.modelType);
  if (shown !== "container") return shown === "whole" ? element : undefined;
  const container = asContainerOnTheWay(element);
  const key = childrenKey(element)!;
  const children = element[key];
  // A container read without its children ($metadata, level core below it) has none to filter.
  if (!Array.isArray(children)) return container;
  return { ...container, [key]: filterElements(children as ElementJson[], scope, path, isList(element)) };
}
