import type { AssetIdQuery } from "../contracts/index.ts";
import { referenceMatches } from "./reference-filter.ts";

/**
 * Asset links (Basic Discovery API) and the `assetIds` filter of /shells both read a shell's
 * asset identifiers: `assetInformation.globalAssetId`, spelled as the link named "globalAssetId",
 * followed by `assetInformation.specificAssetIds`. There is no second copy to keep in sync
 * (docs/adr/0007-asset-links-are-the-shells-asset-ids.md).
 */

/** The reserved link name that stands for `assetInformation.globalAssetId` (AAS API §l). */
export const GLOBAL_ASSET_ID_NAME = "globalAssetId";

/** One `assetIds` query value (contracts: AssetIdQuery). */
export type AssetIdFilter = AssetIdQuery;

interface AssetInformationJson {
  globalAssetId?: string;
  specificAssetIds?: Record<string, unknown>[];
}

function assetInformationOf(shell: Record<string, unknown>): AssetInformationJson {
  return (shell.assetInformation ?? {}) as AssetInformationJson;
}

/**
 * The shell's asset links as SpecificAssetId JSON objects, global asset id first, each link once.
 * A specific asset id may carry the reserved name "globalAssetId" (AASd-116: then its value is the
 * global asset id); it is the same link, so it stands in for the plain `{name, value}` one with
 * whatever it adds (externalSubjectId, semanticId) instead of appearing twice. Twice, a client that
 * posts back what it read got a 400 (a name given twice).
 */
export function assetLinksOf(shell: Record<string, unknown>): Record<string, unknown>[] {
  const info = assetInformationOf(shell);
  const specific = info.specificAssetIds ?? [];
  if (info.globalAssetId === undefined) return [...specific];
  const standIn = specific.find((link) => isGlobalAssetIdLink(link, info.globalAssetId!));
  const global = standIn ?? { name: GLOBAL_ASSET_ID_NAME, value: info.globalAssetId };
  return [global, ...specific.filter((link) => link !== standIn)];
}

/** A specific asset id that names the global asset id (the reserved name, the same value). */
function isGlobalAssetIdLink(link: Record<string, unknown>, globalAssetId: string): boolean {
  return link.name === GLOBAL_ASSET_ID_NAME && link.value === globalAssetId;
}

/** Does the shell carry every one of the given asset ids (in any order)? */
export function matchesAssetIds(shell: Record<string, unknown>, filters: readonly AssetIdFilter[]): boolean {
  const links = assetLinksOf(shell);
  return filters.every(({ name, value, externalSubjectId }) =>
    links.some(
      (link) =>
        link.name === name &&
        link.value === value &&
        (externalSubjectId === undefined ||
          referenceMatches(link.externalSubjectId, { kind: "reference", ...externalSubjectId })),
    ),
  );
}
