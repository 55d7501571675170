import { strToU8, Zip, ZipDeflate } from "fflate";
import { AasError } from "../aas-error.ts";
import {
  ORIGIN_RELATIONSHIP,
  SPEC_RELATIONSHIP,
  SUPPLEMENTARY_RELATIONSHIP,
  THUMBNAIL_RELATIONSHIP,
} from "./aasx-content.ts";
import { FIXED_TIME, ORIGIN_PATH, pathProblems, uriOf } from "./aasx-writer.ts";
import { RELATIONSHIPS_CONTENT_TYPE, writeContentTypes, writeRelationships } from "./opc-xml.ts";
import { entryNameOfPart, partKey, relationshipsPartOf } from "./part-names.ts";

/** A part whose bytes are read only when it is written. */
export interface LazyAasxPart {
  path: string;
  contentType: string;
  bytes(): Promise<Uint8Array>;
}

export interface AasxStreamInput {
  /** The spec part (AAS XML in UTF-8), as it is written. */
  environmentXml: AsyncIterable<Uint8Array>;
  files: LazyAasxPart[];
  /** The package thumbnail; when it is also one of `files` (same part name) it is that part. */
  thumbnail?: LazyAasxPart;
}

/**
 * writeAasx's package (same layout, parts and relationships), written as a stream of zip bytes:
 * the spec part is deflated as its text arrives and each file is read when its turn comes, so
 * neither the model nor the package is ever whole in memory. The part names are checked first
 * (AasError, before any byte), as writeAasx does.
 */
export async function* writeAasxStream(input: AasxStreamInput): AsyncIterable<Uint8Array> {
  const specPath = "/aasx/aas/aas.aas.xml";
  const { thumbnail } = input;
  const thumbnailIsAFile =
    thumbnail !== undefined && input.files.some((file) => partKey(file.path) === partKey(thumbnail.path));
  const problems = pathProblems(input.files, thumbnailIsAFile ? undefined : thumbnail, specPath);
  if (problems.length > 0)
    throw new AasError("value", `Cannot write the AASX package: ${problems[0]}`, { details: problems });

  const lazyParts = [...input.files, ...(thumbnail === undefined || thumbnailIsAFile ? [] : [thumbnail])];
  const overrides: Record<string, string> = {
    [uriOf(ORIGIN_PATH)]: "text/plain",
    [uriOf(specPath)]: "text/xml",
  };
  for (const part of lazyParts) overrides[uriOf(part.path)] = part.contentType;
  const packageRelationships = [{ type: ORIGIN_RELATIONSHIP, target: ORIGIN_PATH }];
  if (thumbnail !== undefined) packageRelationships.push({ type: THUMBNAIL_RELATIONSHIP, target: thumbnail.path });
  const relationshipParts: Record<string, { type: string; target: string }[]> = {
    [relationshipsPartOf(undefined)]: packageRelationships,
    [relationshipsPartOf(ORIGIN_PATH)]: [{ type: SPEC_RELATIONSHIP, target: specPath }],
  };
  if (input.files.length > 0)
    relationshipParts[relationshipsPartOf(specPath)] = input.files.map((file) => ({
      type: SUPPLEMENTARY_RELATIONSHIP,
      target: file.path,
    }));

  // fflate's Zip hands out its bytes synchronously while entries are pushed: collect, then yield.
  let out: Uint8Array[] = [];
  let failed: Error | undefined;
  const zip = new Zip((error, data) => {
    if (error) failed = error;
    else out.push(data);
  });
  const drain = function* () {
    if (failed) throw failed;
    const ready = out;
    out = [];
    yield* ready;
  };
  const entry = (partName: string, zipName = entryNameOfPart(partName)) => {
    const file = new ZipDeflate(zipName, { level: 6 });
    file.mtime = FIXED_TIME;
    zip.add(file);
    return file;
  };
  // Not a part: its ZIP item name is fixed (ECMA-376 Part 2), never percent-encoded as a part name is.
  entry("", "[Content_Types].xml").push(
    strToU8(writeContentTypes({ rels: RELATIONSHIPS_CONTENT_TYPE, xml: "text/xml" }, overrides)),
    true,
  );
  for (const [relsPath, relationships] of Object.entries(relationshipParts)) {
    const withIds = relationships.map((relationship, index) => ({
      ...relationship,
      target: uriOf(relationship.target),
      id: `R${index + 1}`,
    }));
    entry(relsPath).push(strToU8(writeRelationships(withIds)), true);
  }
  entry(ORIGIN_PATH).push(strToU8("Intentionally empty."), true);
  yield* drain();
  const spec = entry(specPath);
  for await (const bytes of input.environmentXml) {
    spec.push(bytes);
    yield* drain();
  }
  spec.push(new Uint8Array(0), true);
  yield* drain();
  for (const part of lazyParts) {
    entry(part.path).push(await part.bytes(), true);
    yield* drain();
  }
  zip.end();
  yield* drain();
}
