import { elementDepth, elementsTooDeep, getMaxNestingDepth, parseIdShortPath } from "../aas/index.ts";
import { rethrowAsCommandError } from "./aas-input.ts";

/**
 * An element written below `parentPath` must fit core.maxNestingDepth counted from the submodel:
 * the element's own nesting was checked when it was read, but where it lands adds the path's
 * depth (every idShort and list index is one element level).
 */
export function checkNestingBelow(parentPath: string, element: unknown): void {
  const above = parentPath === "" ? 0 : parseIdShortPath(parentPath).length;
  const depth = above + elementDepth(element);
  if (depth > getMaxNestingDepth()) rethrowAsCommandError(elementsTooDeep(depth, parentPath));
}
