import { type Content, echoed, type Level, type OutputModifiers, type PageRequest } from "@twinport/shared";
import { badRequest } from "./api-error.ts";
import type { GatewayContext } from "./gateway-env.ts";

/** Which paging and output-modifier parameters an operation accepts (AAS API §c matrix). */
export interface QueryRules {
  paging?: boolean;
  level?: readonly Level[];
  extent?: boolean;
  /** `content` values accepted as query parameter (only "path", where `/$path` exists). */
  content?: readonly Content[];
}

const EXTENTS = ["withBlobValue", "withoutBlobValue"] as const;

/**
 * Reads `limit`, `cursor`, `level`, `extent` and `content`, strictly: a parameter the operation
 * does not accept, a repeated one, or a value outside its enum is a 400 (AAS API §c, §d). Other
 * query parameters are left to the operation (filters) or ignored (cache busters).
 */
export function readPagingAndModifiers(
  c: GatewayContext,
  rules: QueryRules,
): { page?: PageRequest; modifiers?: OutputModifiers } {
  const result: { page?: PageRequest; modifiers?: OutputModifiers } = {};
  const limit = controlled(c, "limit", rules.paging === true);
  const cursor = controlled(c, "cursor", rules.paging === true);
  if (limit !== undefined || cursor !== undefined) {
    const page: PageRequest = {};
    if (limit !== undefined) page.limit = parseLimit(limit);
    if (cursor !== undefined) page.cursor = cursor;
    result.page = page;
  }
  const modifiers: OutputModifiers = {};
  const level = controlled(c, "level", rules.level !== undefined);
  if (level !== undefined) modifiers.level = oneOf("level", level, rules.level ?? []);
  const extent = controlled(c, "extent", rules.extent === true);
  if (extent !== undefined) modifiers.extent = oneOf("extent", extent, EXTENTS);
  const content = controlled(c, "content", rules.content !== undefined);
  if (content !== undefined) modifiers.content = oneOf("content", content, rules.content ?? []);
  if (Object.keys(modifiers).length > 0) result.modifiers = modifiers;
  return result;
}

/** A single-valued query parameter; repeating it is ambiguous, so it is a 400. */
export function singleQuery(c: GatewayContext, name: string): string | undefined {
  // Most requests have no query at all: skip Hono's parse of the URL, once per parameter asked.
  if (!c.req.url.includes("?")) return undefined;
  const values = c.req.queries(name);
  if (values === undefined || values.length === 0) return undefined;
  if (values.length > 1) throw badRequest(`Query parameter "${name}" must be given at most once`);
  return values[0];
}

function controlled(c: GatewayContext, name: string, accepted: boolean): string | undefined {
  const value = singleQuery(c, name);
  if (value !== undefined && !accepted)
    throw badRequest(`Query parameter "${name}" is not supported by this operation`);
  return value;
}

function parseLimit(text: string): number {
  const limit = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    const range = /^[0-9]+$/.test(text) && limit >= 1 ? ` no larger than ${Number.MAX_SAFE_INTEGER}` : "";
    throw badRequest(`Query parameter "limit" must be an integer >= 1${range}, got "${echoed(text)}"`);
  }
  return limit;
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  const expected = allowed.length > 0 ? `one of ${allowed.join(", ")}` : "not given";
  throw badRequest(`Query parameter "${name}" must be ${expected}, got "${echoed(value)}"`);
}
