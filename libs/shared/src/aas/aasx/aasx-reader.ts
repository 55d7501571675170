import { AasError, isAasError } from "../aas-error.ts";
import { parseJsonText } from "../json-text.ts";
import { detectJsonFormatProblem } from "../legacy-format.ts";
import { parseAasXml } from "../xml/aas-xml-reader.ts";
import {
  type AasxContent,
  type AasxPart,
  isRelationshipType,
  ORIGIN_RELATIONSHIP,
  SPEC_RELATIONSHIP,
  SUPPLEMENTARY_RELATIONSHIP,
  THUMBNAIL_RELATIONSHIP,
} from "./aasx-content.ts";
import type { AasxLimits } from "./aasx-limits.ts";
import { inflatePackageOffThread } from "./inflate-off-thread.ts";
import { type ContentTypes, type Relationship, readContentTypes, readRelationships } from "./opc-xml.ts";
import { inflatePackage, type PackagePart, packageError, readPackageDirectory } from "./package-parts.ts";
import {
  extensionOf,
  partKey,
  partNameOfEntry,
  partNameOfModelPath,
  relationshipsPartOf,
  resolveTarget,
} from "./part-names.ts";
import { type ZipEntry, ZipFormatError } from "./zip-directory.ts";
import { entryDataChunks, readEntryData } from "./zip-entry-data.ts";
import { entryProblems } from "./zip-guard.ts";

/**
 * An AASX package (Open Packaging Conventions, IDTA-01005) → its environment and files.
 *
 * The path to the model: `_rels/.rels` → aasx-origin part → its rels → aas-spec part (XML or
 * JSON) → its rels → aas-suppl files. Parts that File elements point to are collected even without
 * an aas-suppl relationship, as many packages in the wild lack it.
 *
 * Package problems (zip, limits, OPC structure) throw one AasError("syntax") listing every problem
 * found; a spec part that is not valid AAS throws the XML/JSON reader's AasError, its message
 * prefixed with the part name. The environment is not validated here: pass it to readAas.
 */
export function readAasx(bytes: Uint8Array, limits: AasxLimits): AasxContent {
  const parts = inflatePackage(bytes, limits);
  return new PackageReader(parts).read();
}

/** readAasx for a server: inflating runs in a worker thread, the event loop keeps serving. */
export async function readAasxOffThread(bytes: Uint8Array, limits: AasxLimits): Promise<AasxContent> {
  const parts = await inflatePackageOffThread(bytes, limits);
  return new PackageReader(parts).read();
}

const OCTET_STREAM = "application/octet-stream";

interface Located {
  spec: PackagePart;
  supplementary: PackagePart[];
  thumbnail?: PackagePart;
}

/** A package opened for streaming: its spec part is read on demand, never held (docs/adr/0037). */
export interface OpenedAasx {
  specPath: string;
  format: "xml" | "json";
  /** The spec part's text, inflated and decoded as it is read; from the start on each call. */
  specText(): Generator<string>;
  /** Supplementary files and thumbnail, given the package paths the model's File values name. */
  filesOf(modelPaths: Iterable<string>): { files: AasxPart[]; thumbnail?: AasxPart };
}

/**
 * readAasxOffThread for a model of any size: every part but the spec part is inflated (in a worker,
 * within the limits) and kept; the spec part is inflated as its text is read, so it is exempt from
 * the limits that bound what inflating holds (entry size, total size, inflate ratio).
 */
export async function openAasxOffThread(bytes: Uint8Array, limits: AasxLimits): Promise<OpenedAasx> {
  const directory = readPackageDirectory(bytes, limits);
  // The package machinery first (small, within the limits): it says which part is the spec part.
  const machinery = directory.entries.filter((entry) => isMachinery(entry.name));
  const problems = [...entryProblems(machinery, limits), ...oversizedMachinery(machinery)];
  if (problems.length > 0) throw packageError(problems);
  const outline = new Map<string, PackagePart>();
  for (const entry of directory.entries) {
    if (entry.name.endsWith("/")) continue;
    let path: string;
    try {
      path = partNameOfEntry(entry.name);
    } catch {
      continue; // reported with every other problem of the directory below
    }
    outline.set(partKey(path), { path, bytes: isMachinery(entry.name) ? machineryData(bytes, entry) : EMPTY });
  }
  let spec: PackagePart;
  try {
    spec = new PackageReader(outline).locate().spec;
  } catch (error) {
    // Not a readable package anyway: its problems are reported in the order the whole-package
    // reader finds them, what the directory reveals (a bomb, zip-slip), then broken entries.
    await inflatePackageOffThread(bytes, limits);
    throw error;
  }
  const specEntry = directory.entries.find((entry) => {
    try {
      return partKey(partNameOfEntry(entry.name)) === partKey(spec.path);
    } catch {
      return false;
    }
  })!;
  // The directory is read again there: the spec entry is known by its name (unique: duplicates are refused).
  const parts = await inflatePackageOffThread(bytes, limits, (entry) => entry.name === specEntry.name);
  parts.set(partKey(spec.path), { path: spec.path, bytes: EMPTY });
  const reader = new PackageReader(parts);
  const located = reader.locate();
  const chunks = function* (): Generator<string> {
    let decoder: TextDecoder | undefined;
    try {
      for (const data of entryDataChunks(bytes, specEntry)) {
        decoder ??= decoderFor(data);
        const text = decoder.decode(data, { stream: true });
        if (text !== "") yield text;
      }
      const rest = (decoder ?? new TextDecoder()).decode();
      if (rest !== "") yield rest;
    } catch (error) {
      if (error instanceof ZipFormatError) throw packageError([error.message]);
      if (error instanceof TypeError) throw packageError([`${spec.path}: the part is not valid UTF-8 text`]);
      throw error;
    }
  };
  let start = "";
  for (const text of chunks()) {
    start = text.slice(0, 64);
    break;
  }
  return {
    specPath: spec.path,
    format: specFormat(spec.path, reader.contentTypeOf(spec.path), start),
    specText: chunks,
    filesOf: (modelPaths) => reader.filesOf(located, modelPaths),
  };
}

const EMPTY = new Uint8Array(0);

function isMachinery(name: string): boolean {
  let key: string;
  try {
    key = partKey(partNameOfEntry(name));
  } catch {
    return false;
  }
  return key.endsWith(".rels") || key === "/[content_types].xml";
}

/**
 * Relationships and content types are read and parsed here, on the event loop (they say which part
 * is the model); a package needs a few KiB of them, one line per part. A 120 MB `.rels` (half a
 * million relationships, compressing 20:1, within every other limit) held the server for seconds.
 */
const MAX_MACHINERY_BYTES = 4 * 1024 * 1024;

function oversizedMachinery(entries: readonly ZipEntry[]): string[] {
  return entries
    .filter((entry) => entry.uncompressedSize > MAX_MACHINERY_BYTES)
    .map(
      (entry) =>
        `"${entry.name}" is ${entry.uncompressedSize} bytes; a package's relationships and content types are at most ${MAX_MACHINERY_BYTES} bytes each`,
    );
}

function machineryData(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  try {
    return readEntryData(bytes, entry);
  } catch (error) {
    if (error instanceof ZipFormatError) throw packageError([error.message]);
    throw error;
  }
}

/** XML and JSON parts are UTF-8 unless a byte order mark says UTF-16 (some .NET tools write it). */
function decoderFor(first: Uint8Array): TextDecoder {
  if (first[0] === 0xff && first[1] === 0xfe) return new TextDecoder("utf-16le");
  if (first[0] === 0xfe && first[1] === 0xff) return new TextDecoder("utf-16be");
  return new TextDecoder("utf-8", { fatal: true });
}

class PackageReader {
  private readonly problems: string[] = [];
  private contentTypes: ContentTypes = { of: () => undefined };
  private readonly relationshipCache = new Map<string, Relationship[]>();

  constructor(private readonly parts: Map<string, PackagePart>) {}

  read(): AasxContent {
    const located = this.locate();
    const { environment, format } = parseSpec(located.spec, this.contentTypes.of(located.spec.path));
    return {
      environment,
      format,
      specPath: located.spec.path,
      ...this.filesOf(located, packagePathsInModel(environment)),
    };
  }

  /** The spec part, its supplementary files and the thumbnail; every structural problem at once. */
  locate(): Located {
    const contentTypesPart = this.parts.get(partKey("/[Content_Types].xml"));
    if (contentTypesPart === undefined)
      this.problems.push("no [Content_Types].xml: not an Open Packaging Conventions package");
    else
      this.attempt(
        contentTypesPart.path,
        () => (this.contentTypes = readContentTypes(decodeText(contentTypesPart.bytes))),
      );

    const packageRelationships = this.relationships(undefined);
    const spec = this.findSpec(packageRelationships);
    // A file is never the model or the package's machinery: the spec part is streamed and held
    // here as an empty placeholder, so one named as a file was stored as 0 bytes.
    const notAFile = (path: string) => isPackageMachinery(path, spec?.path ?? "");
    const supplementary =
      spec === undefined ? [] : this.targets(spec.path, SUPPLEMENTARY_RELATIONSHIP, "aas-suppl", notAFile);
    const thumbnail = this.targets(undefined, THUMBNAIL_RELATIONSHIP, "thumbnail", notAFile)[0];
    if (this.problems.length > 0 || spec === undefined) throw packageError(this.problems);
    return { spec, supplementary, ...(thumbnail === undefined ? {} : { thumbnail }) };
  }

  /** The files to keep: aas-suppl targets and the parts the model's File values name, and the thumbnail. */
  filesOf(located: Located, modelPaths: Iterable<string>): { files: AasxPart[]; thumbnail?: AasxPart } {
    const files = this.supplementaryFiles(located.supplementary, modelPaths, located.spec.path);
    return { files, ...(located.thumbnail === undefined ? {} : { thumbnail: this.asFile(located.thumbnail) }) };
  }

  contentTypeOf(path: string): string | undefined {
    return this.contentTypes.of(path);
  }

  private findSpec(packageRelationships: Relationship[]): PackagePart | undefined {
    const origins = packageRelationships.filter((relationship) =>
      isRelationshipType(relationship.type, ORIGIN_RELATIONSHIP),
    );
    if (origins.length === 0) {
      this.problems.push(
        `no aasx-origin relationship in /_rels/.rels (type ${ORIGIN_RELATIONSHIP}): not an AASX package`,
      );
      return undefined;
    }
    const originPath = resolveTarget(undefined, origins[0].target);
    if (originPath === undefined) {
      this.problems.push(`the aasx-origin relationship points outside the package (${origins[0].target})`);
      return undefined;
    }
    const declared = this.relationships(originPath).filter((relationship) =>
      isRelationshipType(relationship.type, SPEC_RELATIONSHIP),
    );
    if (declared.length === 0) {
      this.problems.push(
        `no aas-spec relationship from ${originPath} (type ${SPEC_RELATIONSHIP}): the package has no AAS model`,
      );
      return undefined;
    }
    const specs = this.targets(originPath, SPEC_RELATIONSHIP, "aas-spec");
    if (specs.length === 0) return undefined; // the missing part is reported by targets()
    if (specs.length > 1) {
      this.problems.push(
        `several aas-spec parts (${specs.map((part) => part.path).join(", ")}); an AASX package holds one`,
      );
      return undefined;
    }
    return specs[0];
  }

  /**
   * The existing parts `source`'s relationships of `type` point to; a missing one is a problem, and
   * so is one `refused` says may not be a target (the model or the package machinery for a file).
   */
  private targets(
    source: string | undefined,
    type: string,
    label: string,
    refused: (path: string) => boolean = () => false,
  ): PackagePart[] {
    const found: PackagePart[] = [];
    for (const relationship of this.relationships(source)) {
      if (relationship.external || !isRelationshipType(relationship.type, type)) continue;
      const path = resolveTarget(source, relationship.target);
      const part = path === undefined ? undefined : this.parts.get(partKey(path));
      if (part === undefined)
        this.problems.push(
          `the ${label} relationship ${relationship.id} points to ${relationship.target}, which is not in the package`,
        );
      else if (refused(part.path))
        this.problems.push(
          `the ${label} relationship ${relationship.id} points to ${relationship.target}, which is the model or the package's own structure, not a file`,
        );
      else found.push(part);
    }
    return found;
  }

  /** The relationships of a part (undefined: of the package), read once so a broken one is reported once. */
  private relationships(source: string | undefined): Relationship[] {
    const relsPath = relationshipsPartOf(source);
    let relationships = this.relationshipCache.get(relsPath);
    if (relationships === undefined) {
      const part = this.parts.get(partKey(relsPath));
      if (part === undefined && source === undefined)
        this.problems.push("no /_rels/.rels: not an Open Packaging Conventions package");
      relationships =
        part === undefined
          ? []
          : (this.attempt(part.path, () => readRelationships(decodeText(part.bytes), part.path)) ?? []);
      this.relationshipCache.set(relsPath, relationships);
    }
    return relationships;
  }

  private supplementaryFiles(supplementary: PackagePart[], modelPaths: Iterable<string>, specPath: string): AasxPart[] {
    const files = new Map<string, PackagePart>();
    for (const part of supplementary) files.set(partKey(part.path), part);
    for (const modelPath of modelPaths) {
      const key = partKey(modelPath);
      const part = this.parts.get(key);
      if (part !== undefined && !files.has(key) && !isPackageMachinery(part.path, specPath)) files.set(key, part);
    }
    return [...files.values()].map((part) => this.asFile(part));
  }

  private asFile(part: PackagePart): AasxPart {
    return { path: part.path, contentType: this.contentTypes.of(part.path) ?? OCTET_STREAM, bytes: part.bytes };
  }

  private attempt<T>(partName: string, read: () => T): T | undefined {
    try {
      return read();
    } catch (error) {
      this.problems.push(`${partName}: ${(error as Error).message}`);
      return undefined;
    }
  }
}

function parseSpec(
  spec: PackagePart,
  contentType: string | undefined,
): { environment: Record<string, unknown>; format: "xml" | "json" } {
  try {
    const text = decodeText(spec.bytes);
    const format = specFormat(spec.path, contentType, text);
    if (format === "xml") return { environment: parseAasXml(text), format };
    const json = parseJsonText(text);
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
      throw new AasError("deserialization", "the JSON spec part is not an object (an AAS environment)");
    }
    const legacy = detectJsonFormatProblem(json);
    if (legacy !== undefined) throw new AasError("syntax", legacy);
    return { environment: json as Record<string, unknown>, format };
  } catch (error) {
    if (!isAasError(error)) throw packageError([`${spec.path}: ${(error as Error).message}`]);
    const options = { details: error.details, ...(error.path === undefined ? {} : { path: error.path }) };
    throw new AasError(error.kind, `${spec.path}: ${error.message}`, options);
  }
}

/** By extension, else by content type, else by the first character (some tools name it ".aas"). */
function specFormat(path: string, contentType: string | undefined, text: string): "xml" | "json" {
  const extension = extensionOf(path);
  if (extension === "json" || extension === "xml") return extension;
  if (contentType !== undefined && /json/i.test(contentType)) return "json";
  if (contentType !== undefined && /xml/i.test(contentType)) return "xml";
  return text.trimStart().startsWith("{") ? "json" : "xml";
}

/** File.value and defaultThumbnail.path values that name a package part (of an environment or one identifiable). */
export function packagePathsInModel(environment: unknown): string[] {
  const paths: string[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (depth > 200 || typeof value !== "object" || value === null) return;
    if (Array.isArray(value)) return value.forEach((item) => visit(item, depth + 1));
    const object = value as Record<string, unknown>;
    const candidate =
      object.modelType === "File"
        ? object.value
        : isResource(object.defaultThumbnail)
          ? object.defaultThumbnail.path
          : undefined;
    if (typeof candidate === "string") {
      const partName = partNameOfModelPath(candidate);
      if (partName !== undefined) paths.push(partName);
    }
    for (const item of Object.values(object)) visit(item, depth + 1);
  };
  visit(environment, 0);
  return paths;
}

function isResource(value: unknown): value is { path: unknown } {
  return typeof value === "object" && value !== null && "path" in value;
}

function isPackageMachinery(path: string, specPath: string): boolean {
  const key = partKey(path);
  return (
    key === partKey(specPath) || key === "/[content_types].xml" || key.endsWith(".rels") || key === "/aasx/aasx-origin"
  );
}

/** XML and JSON parts are UTF-8 unless a byte order mark says UTF-16 (some .NET tools write it). */
function decodeText(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new Error("the part is not valid UTF-8 text");
  }
}
