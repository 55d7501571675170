import { CommandError } from "../contracts/index.ts";

/**
 * Filters on References given as query parameters (`isCaseOf`, `dataSpecificationRef`, and the
 * same shape as `semanticId`). What the client base64url-encodes is ambiguous in 3.0.x (AAS API
 * §l): a Reference serialised as JSON (3.1), or the value of one key (3.0 wording). Both are
 * accepted: text that is JSON must be a Reference and is compared as a whole; text that is not JSON
 * is a key value that any key of the reference may carry. JSON that is not a Reference (`"abc"`,
 * `42`, `[]`, `null`, an object without `keys`) is a 400: the client meant a Reference and sent a
 * malformed one, and answering an empty list would hide that.
 */
export type ReferenceFilter =
  | { kind: "reference"; type?: string; keys: { type: string; value: string }[] }
  | { kind: "key-value"; value: string };

interface ReferenceJson {
  type?: unknown;
  keys?: { type?: unknown; value?: unknown }[];
}

export function parseReferenceFilter(name: string, text: string): ReferenceFilter {
  const parsed = jsonValue(text);
  if (parsed === NOT_JSON) return { kind: "key-value", value: text };
  const isObject = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
  const { type, keys } = (isObject ? parsed : {}) as ReferenceJson;
  const wellFormed =
    isObject &&
    Array.isArray(keys) &&
    keys.length > 0 &&
    keys.every((key) => typeof key?.type === "string" && typeof key?.value === "string") &&
    (type === undefined || typeof type === "string");
  if (!wellFormed) {
    throw new CommandError(
      "bad-request",
      `Query parameter "${name}": a Reference needs "keys", a non-empty list of {"type", "value"} strings`,
    );
  }
  return {
    kind: "reference",
    ...(type !== undefined ? { type: type as string } : {}),
    keys: keys!.map((key) => ({ type: key.type as string, value: key.value as string })),
  };
}

/** Does this Reference (AAS JSON) match the filter? Key comparisons are exact (case-sensitive). */
export function referenceMatches(reference: unknown, filter: ReferenceFilter): boolean {
  const { type, keys } = (reference ?? {}) as ReferenceJson;
  const actual = Array.isArray(keys) ? keys : [];
  if (filter.kind === "key-value") return actual.some((key) => key.value === filter.value);
  if (filter.type !== undefined && filter.type !== type) return false;
  return (
    actual.length === filter.keys.length &&
    filter.keys.every((key, i) => actual[i].type === key.type && actual[i].value === key.value)
  );
}

/** Does any of these References match? (Absent lists match nothing.) */
export function anyReferenceMatches(references: unknown, filter: ReferenceFilter): boolean {
  return Array.isArray(references) && references.some((reference) => referenceMatches(reference, filter));
}

const NOT_JSON = Symbol("not JSON");

function jsonValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}
