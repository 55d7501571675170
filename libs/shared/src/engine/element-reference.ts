import { elementReference, formatIdShortPath, type ModelReference, parseIdShortPath } from "../aas/index.ts";
import type { Repository } from "./ports/index.ts";

/**
 * `$reference` of an element: its keys name the kind of every element on its path, so the path's
 * records are read in one point read (O(depth), never the submodel). Undefined when missing.
 */
export async function readElementReference(
  repository: Repository,
  submodelId: string,
  path: string,
): Promise<{ reference: ModelReference; revision: number; orderKey: string } | undefined> {
  const segments = parseIdShortPath(path);
  const prefixes = segments.map((_, i) => formatIdShortPath(segments.slice(0, i + 1)));
  const records = await repository.getElements(submodelId, prefixes);
  if (records.some((record) => record === undefined)) return undefined;
  const steps = segments.map((segment, i) => ({
    segment,
    modelType: String((JSON.parse(records[i]!.json) as { modelType?: unknown }).modelType),
  }));
  const last = records[records.length - 1]!;
  return { reference: elementReference(submodelId, steps), revision: last.revision, orderKey: last.orderKey };
}
