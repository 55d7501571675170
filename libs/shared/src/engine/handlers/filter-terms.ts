import type { AssetIdFilter } from "../asset-links.ts";
import { assetIdTerm, indexTerm } from "../index-terms.ts";

/** The index terms of the shell filters (idShort, assetIds): a match carries every one of them. */
export function shellFilterTerms(
  idShort: string | undefined,
  assetIds: readonly AssetIdFilter[] | undefined,
): string[] {
  return [
    ...(idShort === undefined ? [] : [indexTerm("idShort", idShort)]),
    ...(assetIds ?? []).map(({ name, value }) => assetIdTerm(name, value)),
  ];
}
