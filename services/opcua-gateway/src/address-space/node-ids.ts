/**
 * String NodeIds (in our namespace) derived from ids and idShortPaths, never from counters, so a
 * client's saved NodeIds and monitored items stay valid across restarts and resyncs.
 *
 *   identifiable        "<id>|"                      e.g. "https://ex.org/sm/1|"
 *   its own metadata    "<id>|/Id", "<id>|/Administration/Version"
 *   element             "<id>|<idShortPath>"         e.g. "https://ex.org/sm/1|Dimensions.Width"
 *   element sub-node    "<id>|<idShortPath>/Value", "…|SpeedToRange/First/Keys"
 *
 * Ids may contain any character, idShortPaths and sub-node names never contain "|": everything
 * after the last "|" is the local part, so two different (id, path) pairs never share a NodeId;
 * and "/" never occurs in an idShortPath, so an element's metadata never meets a child element.
 */
export const ENVIRONMENT_NODE_ID = "AASEnvironment";
export const CONCEPT_DESCRIPTIONS_NODE_ID = "AASEnvironment/ConceptDescriptions";

export function identifiableNodeId(id: string): string {
  return `${id}|`;
}

export function elementNodeId(submodelId: string, idShortPath: string): string {
  return `${submodelId}|${idShortPath}`;
}

export function subNodeId(parentNodeId: string, name: string): string {
  return `${parentNodeId}/${name}`;
}

/** The identifiable id a local NodeId belongs to (undefined for AASEnvironment and its folders). */
export function identifiableIdOf(local: string): string | undefined {
  const bar = local.lastIndexOf("|");
  return bar < 0 ? undefined : local.slice(0, bar);
}
