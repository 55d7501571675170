import { strToU8, type Zippable, zipSync } from "fflate";
import { AasError } from "../aas-error.ts";
import { writeAasXml } from "../xml/aas-xml-writer.ts";
import { assertXmlChars } from "../xml/xml-text.ts";
import {
  type AasxPart,
  type AasxWriteInput,
  ORIGIN_RELATIONSHIP,
  SPEC_RELATIONSHIP,
  SUPPLEMENTARY_RELATIONSHIP,
  THUMBNAIL_RELATIONSHIP,
} from "./aasx-content.ts";
import { RELATIONSHIPS_CONTENT_TYPE, writeContentTypes, writeRelationships } from "./opc-xml.ts";
import { entryNameOfPart, partKey, relationshipsPartOf } from "./part-names.ts";

/**
 * Environment + files → an AASX package in the layout the AASX Package Explorer writes and
 * BaSyx / FA³ST read:
 *
 *   [Content_Types].xml                  every part's content type (Override per part)
 *   _rels/.rels                          aasx-origin, thumbnail
 *   aasx/aasx-origin                     (empty marker part)
 *   aasx/_rels/aasx-origin.rels          aas-spec
 *   aasx/aas/aas.aas.xml (or .json)      the environment
 *   aasx/aas/_rels/aas.aas.xml.rels      aas-suppl, one per file
 *   <each file at its own part name>
 *
 * The output is deterministic (fixed timestamps, ordered parts), so equal input gives equal bytes.
 */
export function writeAasx(content: AasxWriteInput): Uint8Array {
  const format = content.format ?? "xml";
  const specPath = `/aasx/aas/aas.aas.${format}`;
  const thumbnail = content.thumbnail;
  const thumbnailIsAFile =
    thumbnail !== undefined && content.files.some((file) => partKey(file.path) === partKey(thumbnail.path));
  const problems = pathProblems(content.files, thumbnailIsAFile ? undefined : thumbnail, specPath);
  if (
    thumbnailIsAFile &&
    !sameBytes(content.files.find((file) => partKey(file.path) === partKey(thumbnail.path))!.bytes, thumbnail.bytes)
  ) {
    problems.push(`the thumbnail and a file share the part name ${thumbnail.path} but differ in content`);
  }
  if (problems.length > 0) {
    throw new AasError("value", `Cannot write the AASX package: ${problems[0]}`, { details: problems });
  }

  const spec = format === "xml" ? writeAasXml(content.environment) : JSON.stringify(content.environment, null, 2);
  const parts: AasxPart[] = [
    { path: ORIGIN_PATH, contentType: "text/plain", bytes: strToU8("Intentionally empty.") },
    { path: specPath, contentType: format === "xml" ? "text/xml" : "application/json", bytes: strToU8(spec) },
    ...content.files,
    ...(thumbnail === undefined || thumbnailIsAFile ? [] : [thumbnail]),
  ];
  const packageRelationships = [{ type: ORIGIN_RELATIONSHIP, target: ORIGIN_PATH }];
  if (thumbnail !== undefined) packageRelationships.push({ type: THUMBNAIL_RELATIONSHIP, target: thumbnail.path });
  const relationshipParts: Record<string, { type: string; target: string }[]> = {
    [relationshipsPartOf(undefined)]: packageRelationships,
    [relationshipsPartOf(ORIGIN_PATH)]: [{ type: SPEC_RELATIONSHIP, target: specPath }],
  };
  if (content.files.length > 0) {
    relationshipParts[relationshipsPartOf(specPath)] = content.files.map((file) => ({
      type: SUPPLEMENTARY_RELATIONSHIP,
      target: file.path,
    }));
  }

  const overrides: Record<string, string> = {};
  for (const part of parts) overrides[uriOf(part.path)] = part.contentType;
  const zip: Zippable = {
    "[Content_Types].xml": strToU8(writeContentTypes({ rels: RELATIONSHIPS_CONTENT_TYPE, xml: "text/xml" }, overrides)),
  };
  for (const [relsPath, relationships] of Object.entries(relationshipParts)) {
    const withIds = relationships.map((relationship, index) => ({
      ...relationship,
      target: uriOf(relationship.target),
      id: `R${index + 1}`,
    }));
    zip[entryNameOfPart(relsPath)] = strToU8(writeRelationships(withIds));
  }
  for (const part of parts) zip[entryNameOfPart(part.path)] = part.bytes;
  return zipSync(zip, { level: 6, mtime: FIXED_TIME });
}

export const ORIGIN_PATH = "/aasx/aasx-origin";
// Zip timestamps are DOS dates (1980 onwards); a fixed one keeps the output reproducible.
export const FIXED_TIME = new Date(1980, 0, 1);

/** Part names as URIs in OPC XML: percent-encoded like the zip entry names. */
export function uriOf(partName: string): string {
  return "/" + entryNameOfPart(partName);
}

export function pathProblems(
  files: readonly Pick<AasxPart, "path" | "contentType">[],
  thumbnail: Pick<AasxPart, "path" | "contentType"> | undefined,
  specPath: string,
): string[] {
  const problems: string[] = [];
  const reserved = new Map([
    [partKey("/[Content_Types].xml"), "the content types part"],
    [partKey(ORIGIN_PATH), "the aasx-origin part"],
    [partKey(specPath), "the spec part"],
  ]);
  const seen = new Set<string>();
  const all = thumbnail === undefined ? files : [...files, thumbnail];
  for (const part of all) {
    const problem = partNameProblem(part.path);
    if (problem !== undefined) {
      problems.push(`file path "${part.path}" ${problem}`);
      continue;
    }
    const key = partKey(part.path);
    if (reserved.has(key)) problems.push(`file path "${part.path}" is ${reserved.get(key)} of the package`);
    else if (seen.has(key)) problems.push(`file path "${part.path}" appears twice (part names ignore case)`);
    seen.add(key);
    if (typeof part.contentType !== "string" || part.contentType.trim() === "")
      problems.push(`file "${part.path}" has no content type`);
  }
  return problems;
}

/** Why `path` cannot be an OPC part name we write, or undefined. */
function partNameProblem(path: string): string | undefined {
  if (typeof path !== "string" || !path.startsWith("/")) return 'must start with "/"';
  if (path.endsWith("/")) return 'must not end with "/"';
  if (path.includes("\\")) return "must not contain a backslash";
  const segments = path.slice(1).split("/");
  if (segments.some((segment) => segment === "" || segment === "." || segment === ".."))
    return 'has an empty, "." or ".." segment';
  if (segments.slice(0, -1).some((segment) => segment.toLowerCase() === "_rels"))
    return "is inside a _rels folder (reserved for relationships)";
  try {
    assertXmlChars(path, "the path");
  } catch {
    return "contains a character XML cannot hold";
  }
  return undefined;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}
