import { childPath, childrenKey, type ElementJson } from "../../aas/index.ts";
import type { ModelFormat } from "../../contracts/index.ts";

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

/**
 * JSON and XML carry the model only: File values stay paths and the files are left out (spec
 * §4.1.6: that is not a failure). AASX carries every stored file a File element or a thumbnail
 * points to. A package path whose file is not stored (a model loaded from JSON names files it never
 * had) or cannot be a part is left out of the package's copy of the model: the File keeps its
 * contentType but loses its value, a shell loses its defaultThumbnail. Strict readers (BaSyx's)
 * resolve every package path to a part and refuse the whole package when one is missing; the store
 * keeps the values, and the caller is told which were left out (package-stream.ts).
 */
export function omittedWarning(omitted: readonly string[]): string {
  const unique = [...new Set(omitted)];
  // A header line: clients refuse long ones (curl and Node's fetch at 16 KB of headers, Python at
  // 64 KB a line, proxies at 4-8 KB), and then the package could not be read at all. 5,000 left-out
  // paths once made a 310 KB header.
  const named = unique.slice(0, MAX_NAMED_PATHS).map((path) => (path.length > 200 ? `${path.slice(0, 200)}…` : path));
  const more = unique.length > named.length ? ` and ${unique.length - named.length} more` : "";
  return `${unique.length} file path(s) left out of the package (no file stored, or a part name the package reserves): ${named.join(", ")}${more}`;
}

/** How many left-out paths the warning names (each at most ~200 characters): about 4 KB at most. */
export const MAX_NAMED_PATHS = 20;

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

/**
 * The File elements of one submodel that hold a value, with their idShortPaths: a package carries
 * an uploaded file only for a File its caller may read it through (files/upload-access.ts).
 */
export function fileElementsIn(submodel: Record<string, unknown>): { value: string; idShortPath: string }[] {
  const found: { value: string; idShortPath: string }[] = [];
  const visit = (elements: unknown, parentPath: string, inList: boolean): void => {
    if (!Array.isArray(elements)) return;
    elements.forEach((item, index) => {
      if (typeof item !== "object" || item === null) return;
      const element = item as ElementJson;
      const idShort = typeof element.idShort === "string" ? element.idShort : undefined;
      if (!inList && idShort === undefined) return;
      const path = childPath(parentPath, inList ? { index } : { idShort });
      if (element.modelType === "File" && typeof element.value === "string")
        found.push({ value: element.value, idShortPath: path });
      const key = childrenKey(element);
      if (key !== undefined) visit(element[key], path, element.modelType === "SubmodelElementList");
    });
  };
  visit(submodel.submodelElements, "", false);
  return found;
}
