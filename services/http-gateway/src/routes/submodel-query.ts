import type { OutputModifiers, PageRequest } from "@twinport/shared";
import type { GatewayContext } from "../http/gateway-env.ts";
import { type QueryRules, readPagingAndModifiers, singleQuery } from "../http/query.ts";

/**
 * Query parameters of the Submodel (Repository) API's GETs, strictly per operation (AAS API §c):
 * - `?content=path` is the `/$path` suffix (docs/architecture.md §8): where `pathRules` are given it
 *   switches to them (so it takes exactly what `/$path` takes); any other `content` value is a 400;
 * - `extent`, where the operation has it, defaults to the API's "withoutBlobValue", stated here
 *   because the engine's own default keeps Blob bytes for its internal readers.
 */
export function readGetQuery(
  c: GatewayContext,
  rules: QueryRules,
  pathRules?: QueryRules,
): { page?: PageRequest; modifiers: OutputModifiers } {
  if (pathRules !== undefined && singleQuery(c, "content") === "path") {
    const { page, modifiers } = readPagingAndModifiers(c, { ...pathRules, content: ["path"] });
    return { page, modifiers: { ...modifiers, content: "path" } };
  }
  const { page, modifiers } = readPagingAndModifiers(c, {
    ...rules,
    ...(pathRules !== undefined ? { content: ["path"] } : {}),
  });
  const result: OutputModifiers = { ...modifiers };
  if (rules.extent === true && result.extent === undefined) result.extent = "withoutBlobValue";
  return { page, modifiers: result };
}
