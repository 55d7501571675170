import { KEY_TYPE_NAMES } from "../aas/index.ts";
import { CommandError } from "../contracts/index.ts";

/**
 * Filters on References given as query parameters (`isCaseOf`, `dataSpecificationRef`, and the
 * same shape as `semanticId`). What the client base64url-encodes is ambiguous in 3.0.x (AAS API
 * §l): a Reference serialised as JSON (3.1), or the value of one key (3.0 wording). Both are
 * accepted: text that is JSON must be a Reference and is compared as a whole; text that is not JSON
 * is a key value that any key of the reference may carry. JSON that is not a Reference (`"abc"`,
 * `42`, `[]`, `null`, an object without `keys`, a member or a type the metamodel does not have) is a
 * 400: the client meant a Reference and sent a malformed one, and answering an empty list would hide
 * that. `type` may be left out (then any type matches); a `referredSemanticId` must match too.
 */
export type ReferenceFilter =
  | { kind: "reference"; type?: string; keys: { type: string; value: string }[]; referredSemanticId?: ReferenceFilter }
  | { kind: "key-value"; value: string };

interface ReferenceJson {
  type?: unknown;
  keys?: { type?: unknown; value?: unknown }[];
  referredSemanticId?: unknown;
}

const REFERENCE_TYPES = ["ExternalReference", "ModelReference"];
const REFERENCE_MEMBERS = new Set(["type", "keys", "referredSemanticId"]);

export function parseReferenceFilter(name: string, text: string): ReferenceFilter {
  const parsed = jsonValue(text);
  if (parsed === NOT_JSON) return { kind: "key-value", value: text };
  return referenceOf(name, parsed);
}

function referenceOf(name: string, json: unknown): ReferenceFilter & { kind: "reference" } {
  const refuse = (why: string) => new CommandError("bad-request", `Query parameter "${name}": ${why}`);
  const isObject = typeof json === "object" && json !== null && !Array.isArray(json);
  // A member given as null is absent (AAS JSON; serializers write unset optional members so).
  const parsed = isObject
    ? Object.fromEntries(Object.entries(json as object).filter(([, value]) => value !== null))
    : json;
  const { type, keys, referredSemanticId } = (isObject ? parsed : {}) as ReferenceJson;
  const wellFormed =
    isObject &&
    Array.isArray(keys) &&
    keys.length > 0 &&
    keys.every((key) => typeof key?.type === "string" && typeof key?.value === "string") &&
    (type === undefined || typeof type === "string");
  if (!wellFormed) throw refuse('a Reference needs "keys", a non-empty list of {"type", "value"} strings');
  const unknown = Object.keys(parsed as object).filter((member) => !REFERENCE_MEMBERS.has(member));
  if (unknown.length > 0) throw refuse(`a Reference has no ${unknown.map((m) => `"${m}"`).join(", ")}`);
  if (type !== undefined && !REFERENCE_TYPES.includes(type as string))
    throw refuse(`a Reference's type is ${REFERENCE_TYPES.join(" or ")}, not ${JSON.stringify(type)}`);
  const badKey = keys!.find((key) => !KEY_TYPE_NAMES.includes(key.type as string) || Object.keys(key).length !== 2);
  if (badKey !== undefined)
    throw refuse(`a key is {"type", "value"} with a type of the metamodel's KeyTypes, not ${JSON.stringify(badKey)}`);
  return {
    kind: "reference",
    ...(type !== undefined ? { type: type as string } : {}),
    keys: keys!.map((key) => ({ type: key.type as string, value: key.value as string })),
    ...(referredSemanticId !== undefined
      ? { referredSemanticId: referenceOf(`${name}.referredSemanticId`, referredSemanticId) }
      : {}),
  };
}

/** Does this Reference (AAS JSON) match the filter? Key comparisons are exact (case-sensitive). */
export function referenceMatches(reference: unknown, filter: ReferenceFilter): boolean {
  const { type, keys } = (reference ?? {}) as ReferenceJson;
  const actual = Array.isArray(keys) ? keys : [];
  if (filter.kind === "key-value") return actual.some((key) => key.value === filter.value);
  if (filter.type !== undefined && filter.type !== type) return false;
  if (
    filter.referredSemanticId !== undefined &&
    !referenceMatches((reference as ReferenceJson).referredSemanticId, filter.referredSemanticId)
  )
    return false;
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
