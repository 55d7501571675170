import { encodeBase64Url } from "@twinport/shared";
import type { InterfaceBase } from "./interface-bases.ts";

/**
 * Descriptors of the Part 2 schemas (v3.0.1) built from the stored AAS JSON. The nested metamodel
 * parts (administration, references, lang strings, specific asset ids, extensions) are already
 * Part 1 JSON in the store, so enum literals come out as `Instance` and `ExternalReference`, never
 * FA³ST 1.3.0's `INSTANCE`. Every array the schema bounds with minItems 1 is left out when empty.
 */

type Json = Record<string, unknown>;
export type Descriptor = Json & { id: string };

/** What every descriptor takes from its identifiable (the Descriptor base of the Part 2 schemas). */
interface IdentifiableSource {
  id: string;
  idShort?: string;
  administration?: unknown;
  description?: unknown[];
  displayName?: unknown[];
  extensions?: unknown[];
}

/** Shell fields the descriptor needs (the shell JSON, or just these). */
export interface ShellSource extends IdentifiableSource {
  assetInformation?: { assetKind?: string; assetType?: string; globalAssetId?: string; specificAssetIds?: unknown[] };
  submodels?: { keys?: { type?: string; value?: string }[] }[];
}

export interface SubmodelSource extends IdentifiableSource {
  semanticId?: unknown;
  supplementalSemanticIds?: unknown[];
}

const PROTOCOL = { endpointProtocol: "HTTP", endpointProtocolVersion: ["1.1"] };

/** Copies the present, non-empty values; the order of `fields` is the order in the descriptor. */
function pick(source: Json, fields: readonly string[], rename: Record<string, string> = {}): Json {
  const out: Json = {};
  for (const field of fields) {
    const value = source[field];
    if (value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0)) continue;
    out[rename[field] ?? field] = value;
  }
  return out;
}

function endpoints(bases: readonly InterfaceBase[], kind: "shells" | "submodels", id: string): Json[] {
  const served = bases.filter((b) => (kind === "shells" ? b.servesShells : b.servesSubmodels));
  const iface = kind === "shells" ? "AAS-3.0" : "SUBMODEL-3.0";
  return served.map((b) => ({
    interface: iface,
    protocolInformation: { href: `${b.apiRoot}/${kind}/${encodeBase64Url(id)}`, ...PROTOCOL },
  }));
}

/** Undefined when no HTTP endpoint serves submodels: `endpoints` is required for a submodel descriptor. */
export function submodelDescriptor(submodel: SubmodelSource, bases: readonly InterfaceBase[]): Descriptor | undefined {
  const list = endpoints(bases, "submodels", submodel.id);
  if (list.length === 0) return undefined;
  const fields = pick(
    submodel as unknown as Json,
    [
      "description",
      "displayName",
      "extensions",
      "administration",
      "idShort",
      "id",
      "semanticId",
      "supplementalSemanticIds",
    ],
    {
      // The descriptor's name is singular (Part 2 v3.0.1), the metamodel's plural.
      supplementalSemanticIds: "supplementalSemanticId",
    },
  );
  return { ...fields, id: submodel.id, endpoints: list };
}

/** The ids of the submodels a shell references, in its order (ModelReferences whose last key is a Submodel). */
export function referencedSubmodelIds(shell: ShellSource): string[] {
  const ids: string[] = [];
  for (const reference of shell.submodels ?? []) {
    const last = reference.keys?.at(-1);
    if (last?.type === "Submodel" && typeof last.value === "string" && !ids.includes(last.value)) ids.push(last.value);
  }
  return ids;
}

/**
 * An AAS descriptor with one nested submodel descriptor per referenced submodel this server holds
 * (a reference to a submodel held elsewhere is not ours to describe).
 */
export function shellDescriptor(
  shell: ShellSource,
  submodelOf: (id: string) => SubmodelSource | undefined,
  bases: readonly InterfaceBase[],
): Descriptor {
  const asset = (shell.assetInformation ?? {}) as Json;
  const nested = referencedSubmodelIds(shell)
    .map((id) => submodelOf(id))
    .filter((s): s is SubmodelSource => s !== undefined)
    .map((s) => submodelDescriptor(s, bases))
    .filter((d): d is Descriptor => d !== undefined);
  const list = endpoints(bases, "shells", shell.id);
  return {
    ...pick(shell as unknown as Json, ["description", "displayName", "extensions", "administration"]),
    ...pick(asset, ["assetKind"]),
    ...(list.length > 0 ? { endpoints: list } : {}),
    ...pick(asset, ["globalAssetId"]),
    ...pick(shell as unknown as Json, ["idShort"]),
    id: shell.id,
    ...pick(asset, ["specificAssetIds", "assetType"]),
    ...(nested.length > 0 ? { submodelDescriptors: nested } : {}),
  };
}

/** Key order does not matter to a registry: compare descriptors by their canonical JSON. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Json)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
