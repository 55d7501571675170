/**
 * What the streaming environment readers (JSON: environment-json-stream.ts, XML:
 * xml/aas-xml-stream.ts) hand out: one identifiable of the environment's top-level lists at a
 * time, as read (AAS JSON shape, not yet checked against the metamodel), so a model of any size
 * is read with memory for one identifiable.
 */
export type EnvironmentSectionKey = "assetAdministrationShells" | "submodels" | "conceptDescriptions";

export const ENVIRONMENT_SECTION_KEYS: readonly EnvironmentSectionKey[] = [
  "assetAdministrationShells",
  "submodels",
  "conceptDescriptions",
];

export interface EnvironmentItem {
  key: EnvironmentSectionKey;
  /** Position in its list, counted from 0. */
  index: number;
  value: unknown;
}

export type EnvironmentItemSink = (item: EnvironmentItem) => void;

/** Fed text as it arrives; hands each identifiable to the sink as soon as it is complete. */
export interface EnvironmentStreamReader {
  write(chunk: string): void;
  /** The document is complete: throws when it ended early or held no environment. */
  end(): void;
}
