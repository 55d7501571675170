import {
  type AssetIdQuery,
  CommandError,
  decodeBase64Url,
  isAasError,
  parseReferenceFilter,
  type ReferenceFilter,
} from "@twinport/shared";
import { badRequest } from "./api-error.ts";
import type { GatewayContext } from "./gateway-env.ts";
import { singleQuery } from "./query.ts";

/**
 * Query parameters whose values are base64url-encoded (AAS API §f, §l). Hono has already
 * percent-decoded them (spec §4.1.3); what remains must be valid base64url, else 400.
 */
export function base64UrlQuery(c: GatewayContext, name: string): string | undefined {
  const encoded = singleQuery(c, name);
  return encoded === undefined ? undefined : decodeQueryValue(name, encoded);
}

/**
 * `assetIds` (and the singular `assetId` that spec §4.1.10 names for /shells/$reference): repeatable
 * or comma-separated, each the base64url of a JSON SpecificAssetId-like object or of an array of
 * them (AAS API §l). The shell must match all of them; the engine filters.
 */
export function assetIdsQuery(c: GatewayContext, names: readonly string[] = ["assetIds"]): AssetIdQuery[] | undefined {
  const values = names.flatMap((name) =>
    (c.req.queries(name) ?? []).flatMap((value) => value.split(",")).map((value) => ({ name, value })),
  );
  if (values.length === 0) return undefined;
  return values.flatMap(({ name, value }) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(decodeQueryValue(name, value));
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      throw badRequest(`Query parameter "${name}": it is not JSON`);
    }
    // An empty array names no asset id: as a filter it would match every shell, so it is as
    // malformed as `null` or a bare string.
    if (Array.isArray(parsed) && parsed.length === 0)
      throw badRequest(`Query parameter "${name}": an empty list names no asset id`);
    return (Array.isArray(parsed) ? parsed : [parsed]).map((candidate) => assetIdOf(name, candidate));
  });
}

function decodeQueryValue(name: string, encoded: string): string {
  try {
    return decodeBase64Url(encoded);
  } catch (error) {
    if (isAasError(error)) throw badRequest(`Query parameter "${name}": ${error.message}`);
    throw error;
  }
}

/** A SpecificAssetId's members; semanticIds describe the id, they do not select it. */
const ASSET_ID_MEMBERS = new Set(["name", "value", "externalSubjectId", "semanticId", "supplementalSemanticIds"]);

function assetIdOf(parameter: string, candidate: unknown): AssetIdQuery {
  const { name, value, externalSubjectId } = (candidate ?? {}) as Record<string, unknown>;
  if (typeof candidate !== "object" || typeof name !== "string" || typeof value !== "string") {
    throw badRequest(`Query parameter "${parameter}": each value must encode an object with string "name" and "value"`);
  }
  const unknown = Object.keys(candidate as object).filter((member) => !ASSET_ID_MEMBERS.has(member));
  if (unknown.length > 0)
    throw badRequest(
      `Query parameter "${parameter}": a SpecificAssetId has no ${unknown.map((m) => `"${m}"`).join(", ")}`,
    );
  if (externalSubjectId === undefined || externalSubjectId === null) return { name, value };
  // Checked as a Reference (a 400 for anything else), and then matched: an asset id of another subject is another one.
  let subject: ReferenceFilter;
  try {
    subject = parseReferenceFilter(`${parameter}.externalSubjectId`, JSON.stringify(externalSubjectId));
  } catch (error) {
    if (error instanceof CommandError) throw badRequest(error.message);
    throw error;
  }
  if (subject.kind !== "reference")
    throw badRequest(`Query parameter "${parameter}": externalSubjectId must be a Reference`);
  const { kind: _kind, ...reference } = subject;
  return { name, value, externalSubjectId: reference };
}
