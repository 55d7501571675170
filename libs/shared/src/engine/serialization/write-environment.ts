import { type AasxPart, writeAasXml, writeAasx } from "../../aas/index.ts";
import type { FileContent, ModelFormat } from "../../contracts/index.ts";
import type { EngineContext } from "../engine-context.ts";
import { encodeBase64, fileKeyOf, partNameOf } from "../files/file-paths.ts";
import type { SelectedEnvironment } from "./select-environment.ts";

export const MEDIA_TYPES: Record<ModelFormat, string> = {
  json: "application/json",
  xml: "application/xml",
  aasx: "application/asset-administration-shell-package+xml",
};

export const FILE_NAMES: Record<ModelFormat, string> = {
  json: "environment.json",
  xml: "environment.xml",
  aasx: "environment.aasx",
};

/** The Environment in AAS JSON; Part 1 wants no empty lists (minItems 1), so those are left out. */
export function environmentJson(selected: SelectedEnvironment): Record<string, unknown> {
  const environment: Record<string, unknown> = {};
  if (selected.shells.length > 0) environment.assetAdministrationShells = selected.shells;
  if (selected.submodels.length > 0) environment.submodels = selected.submodels;
  if (selected.conceptDescriptions.length > 0) environment.conceptDescriptions = selected.conceptDescriptions;
  return environment;
}

/**
 * JSON and XML carry the model only: File values stay paths and the files are left out (spec
 * §4.1.6: that is not a failure). AASX carries every stored file a File element or a thumbnail
 * points to. A package path whose file is not stored (a model loaded from JSON names files it never
 * had) or cannot be a part is left out of the package's copy of the model: the File keeps its
 * contentType but loses its value, a shell loses its defaultThumbnail. Strict readers (BaSyx's)
 * resolve every package path to a part and refuse the whole package when one is missing; the store
 * keeps the values, and the caller is told which were left out in `warnings`.
 */
export async function writeEnvironment(
  ctx: EngineContext,
  selected: SelectedEnvironment,
  format: ModelFormat,
): Promise<FileContent> {
  const environment = environmentJson(selected);
  let bytes: Uint8Array;
  if (format === "json") bytes = Buffer.from(JSON.stringify(environment), "utf8");
  else if (format === "xml") bytes = Buffer.from(writeAasXml(environment), "utf8");
  else {
    const written = await writePackage(ctx, environment, selected);
    const content = { fileName: FILE_NAMES[format], contentType: MEDIA_TYPES[format] };
    const warnings = written.omitted.length === 0 ? undefined : [omittedWarning(written.omitted)];
    return { ...content, contentBase64: encodeBase64(written.bytes), ...(warnings ? { warnings } : {}) };
  }
  return { fileName: FILE_NAMES[format], contentType: MEDIA_TYPES[format], contentBase64: encodeBase64(bytes) };
}

export function omittedWarning(omitted: readonly string[]): string {
  const unique = [...new Set(omitted)];
  return `${unique.length} file path(s) left out of the package (no file stored, or a part name the package reserves): ${unique.join(", ")}`;
}

async function writePackage(
  ctx: EngineContext,
  environment: Record<string, unknown>,
  selected: SelectedEnvironment,
): Promise<{ bytes: Uint8Array; omitted: string[] }> {
  const files = new Map<string, AasxPart>();
  let thumbnail: AasxPart | undefined;
  const add = async (modelPath: string): Promise<AasxPart | undefined> => {
    const partName = partNameOf(modelPath);
    const key = fileKeyOf(modelPath);
    if (partName === undefined || key === undefined || !isCarriable(partName)) return undefined;
    if (files.has(key)) return files.get(key);
    const stored = await ctx.fileStore.get(key);
    if (!stored) return undefined;
    const part = { path: partName, contentType: stored.contentType, bytes: stored.bytes };
    files.set(key, part);
    return part;
  };
  for (const path of filePathsIn(selected.submodels)) await add(path);
  for (const shell of selected.shells) {
    const path = (shell.assetInformation as { defaultThumbnail?: { path?: unknown } } | undefined)?.defaultThumbnail
      ?.path;
    if (typeof path !== "string") continue;
    const part = await add(path);
    // The package thumbnail is the first shell's, as the AASX Package Explorer does it.
    thumbnail ??= part;
  }
  const carried = new Set(files.keys());
  try {
    const copy = withoutMissingParts(environment, carried);
    return { bytes: writeAasx({ environment: copy.environment, files: [...files.values()], thumbnail }), ...copy };
  } catch {
    // A part name the writer still refuses: the model matters more than its files.
    const copy = withoutMissingParts(environment, new Set());
    return { bytes: writeAasx({ environment: copy.environment, files: [] }), ...copy };
  }
}

/**
 * A copy of the environment in which every package path names a carried part: File values and
 * default thumbnails pointing to anything else are removed (both are optional in the metamodel).
 * External URLs stay as they are: they point outside the package.
 */
function withoutMissingParts(
  environment: Record<string, unknown>,
  carried: ReadonlySet<string>,
): { environment: Record<string, unknown>; omitted: string[] } {
  const copy = structuredClone(environment);
  const omitted: string[] = [];
  const missing = (path: unknown): path is string => {
    if (typeof path !== "string") return false;
    const key = fileKeyOf(path);
    return key !== undefined && !carried.has(key);
  };
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== "object" || value === null) return;
    const object = value as Record<string, unknown>;
    if (object.modelType === "File" && missing(object.value)) {
      omitted.push(object.value);
      delete object.value;
    }
    for (const key of ["submodelElements", "value", "statements", "annotations"])
      if (Array.isArray(object[key])) visit(object[key]);
  };
  visit(copy.submodels);
  for (const shell of (copy.assetAdministrationShells ?? []) as Record<string, unknown>[]) {
    const info = shell.assetInformation as { defaultThumbnail?: { path?: unknown } } | undefined;
    if (info?.defaultThumbnail && missing(info.defaultThumbnail.path)) {
      omitted.push(info.defaultThumbnail.path);
      delete info.defaultThumbnail;
    }
  }
  return { environment: copy, omitted };
}

/** Part names the package layout reserves or OPC cannot hold. */
export function isCarriable(partName: string): boolean {
  const lower = partName.toLowerCase();
  if (["/[content_types].xml", "/aasx/aasx-origin", "/aasx/aas/aas.aas.xml"].includes(lower)) return false;
  if (partName.includes("\\") || partName.endsWith("/")) return false;
  const segments = lower.slice(1).split("/");
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) return false;
  if (segments.slice(0, -1).includes("_rels") || lower.endsWith(".rels")) return false;
  // XML 1.0 cannot hold control characters other than tab, CR, LF.
  return !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(partName);
}

/** File.value of every File element in the submodels. */
export function filePathsIn(submodels: readonly unknown[]): string[] {
  const paths: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== "object" || value === null) return;
    const object = value as Record<string, unknown>;
    if (object.modelType === "File" && typeof object.value === "string") paths.push(object.value);
    for (const key of ["submodelElements", "value", "statements", "annotations"])
      if (Array.isArray(object[key])) visit(object[key]);
  };
  visit(submodels);
  return paths;
}
