import { decodeBase64Url, isAasError } from "@twinport/shared";
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
export function assetIdsQuery(
  c: GatewayContext,
  names: readonly string[] = ["assetIds"],
): { name: string; value: string }[] | undefined {
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

function assetIdOf(parameter: string, candidate: unknown): { name: string; value: string } {
  const { name, value } = (candidate ?? {}) as { name?: unknown; value?: unknown };
  if (typeof candidate !== "object" || typeof name !== "string" || typeof value !== "string") {
    throw badRequest(`Query parameter "${parameter}": each value must encode an object with string "name" and "value"`);
  }
  return { name, value };
}
