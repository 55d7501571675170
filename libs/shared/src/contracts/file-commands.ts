import type { ErrorCode } from "./errors.ts";
import type { PageRequest, Preconditions } from "./modifiers.ts";
import type { Paged } from "./replies.ts";

/**
 * Commands about files, packages and formats: attachments, thumbnails, serialization, import,
 * reset and the AASX File Server API. Bytes travel as base64 inside the JSON command or reply; the
 * NATS transport chunks whatever exceeds one message (bus/chunking.ts), so a file of any size up
 * to the request body limit crosses the bus.
 */

/** A file sent to the store: the multipart `file` part with its `fileName`. */
export interface FileUpload {
  fileName: string;
  /** The part's Content-Type, when the client sent a meaningful one. */
  contentType?: string;
  contentBase64: string;
}

/** A file read from the store. */
/**
 * A file sent as it is produced: the commands of STREAMED_COMMANDS can answer this way
 * (StoreClient.stream), so a whole-model export is never held in memory (docs/adr/0034).
 * `chunks` can be iterated once; whoever stops early must call `return()` (for await does).
 */
export interface FileStream {
  fileName?: string;
  contentType: string;
  warnings?: string[];
  chunks: AsyncIterable<Uint8Array>;
}

/** Commands that may answer with a FileStream. */
export const STREAMED_COMMANDS: ReadonlySet<string> = new Set(["GenerateSerializationByIds", "GetAASXByPackageId"]);

export interface FileContent {
  /** Name for Content-Disposition / X-FileName (the last segment of the stored path). */
  fileName?: string;
  contentType: string;
  contentBase64: string;
  /**
   * What the caller should know about a file that is still a 200 (an AASX export that left out
   * File values whose files were never stored); the HTTP gateway sends them as `Twinport-Warning`.
   */
  warnings?: string[];
}

/** Serialization formats of the Serialization API and of /import. */
export type ModelFormat = "json" | "xml" | "aasx";

/** One model document to import: text for JSON/XML, base64 for AASX (or any format). */
export interface ImportDocument {
  /** Where it came from (a file name), named in every error about it. */
  source?: string;
  format: ModelFormat;
  text?: string;
  contentBase64?: string;
}

/**
 * Start-up model files handed to the engine in process, to be read from disk in chunks
 * (docs/adr/0037). Not a command: a path on the server is nothing a client may name.
 */
export interface ModelFilesImport {
  /** `path`: read from that file; else `document`, in memory. */
  files: { source: string; format: ModelFormat; path?: string; document?: ImportDocument }[];
  mode: ImportMode;
  validate: boolean;
  onlyIfEmpty?: boolean;
  origin?: string;
}

/**
 * How an import treats a problem:
 * - `all-or-nothing` (start-up models, AASX packages): the first problem fails the whole import
 *   and nothing is written;
 * - `partial` (POST /import): an identifiable with a problem is reported and left out, the rest is
 *   imported (see docs in handlers/import-environment.ts).
 */
export type ImportMode = "all-or-nothing" | "partial";

/** One problem met by a partial import. */
export interface ImportProblem {
  code: ErrorCode;
  text: string;
  source?: string;
  /** The identifiable concerned, when the problem is about one. */
  modelType?: "AssetAdministrationShell" | "Submodel" | "ConceptDescription";
  id?: string;
  /** Further messages, e.g. every metamodel constraint that failed. */
  details?: string[];
}

export interface ImportOutcome {
  shells: number;
  submodels: number;
  conceptDescriptions: number;
  /** Submodel elements of the imported submodels, nested ones included (for the start banner). */
  elements: number;
  /** Files (AASX parts) written to the file store. */
  files: number;
  /** True when `onlyIfEmpty` found data, so nothing was imported. */
  skipped: boolean;
  /** What a partial import left out, and why (always empty for all-or-nothing). */
  problems: ImportProblem[];
}

/** AAS API PackageDescription (AASX File Server API, digest §k). */
export interface PackageDescription {
  packageId: string;
  aasIds: string[];
}

interface FileScope {
  submodelId: string;
  /** Set when the request came through /shells/{aasIdentifier}/submodels/{submodelIdentifier}/… */
  aasId?: string;
  idShortPath: string;
}

export interface FileCommandMap {
  // ---- Submodel API: File attachments (…/submodel-elements/{idShortPath}/attachment)
  GetFileByPath: { params: FileScope; result: FileContent };
  PutFileByPath: { params: FileScope & { file: FileUpload; preconditions?: Preconditions }; result: null };
  DeleteFileByPath: { params: FileScope & { preconditions?: Preconditions }; result: null };

  // ---- AAS API: the asset's default thumbnail
  GetThumbnail: { params: { aasId: string }; result: FileContent };
  PutThumbnail: { params: { aasId: string; file: FileUpload; preconditions?: Preconditions }; result: null };
  DeleteThumbnail: { params: { aasId: string; preconditions?: Preconditions }; result: null };

  // ---- Serialization API
  /** No ids at all = the whole repository. includeConceptDescriptions defaults to true. */
  GenerateSerializationByIds: {
    params: { aasIds?: string[]; submodelIds?: string[]; includeConceptDescriptions?: boolean; format: ModelFormat };
    result: FileContent;
  };

  // ---- Proprietary (spec §4.2) and start-up loading
  ImportEnvironment: {
    params: { documents: ImportDocument[]; mode: ImportMode; validate?: boolean; onlyIfEmpty?: boolean };
    result: ImportOutcome;
  };
  /** Deletes every shell, submodel, concept description and file, each deletion an event; first the reset hooks run (pending operations, configured asset connections). */
  ResetStore: { params: Record<string, never>; result: null };

  // ---- AASX File Server API
  GetAllAASXPackageIds: { params: { aasId?: string; page?: PageRequest }; result: Paged<PackageDescription> };
  GetAASXByPackageId: { params: { packageId: string }; result: FileContent };
  /** aasIds: as the client declared them; absent = the ids of the package's shells. */
  PostAASXPackage: { params: { file: FileUpload; aasIds?: string[] }; result: PackageDescription };
  PutAASXByPackageId: { params: { packageId: string; file: FileUpload; aasIds?: string[] }; result: null };
  DeleteAASXByPackageId: { params: { packageId: string }; result: null };
}

type FileCommandType = keyof FileCommandMap;

export const FILE_WRITE_COMMANDS: readonly FileCommandType[] = [
  "PutFileByPath",
  "DeleteFileByPath",
  "PutThumbnail",
  "DeleteThumbnail",
  "ImportEnvironment",
  "ResetStore",
  "PostAASXPackage",
  "PutAASXByPackageId",
  "DeleteAASXByPackageId",
];

export const FILE_COMMAND_TYPES: readonly FileCommandType[] = [
  "GetFileByPath",
  "PutFileByPath",
  "DeleteFileByPath",
  "GetThumbnail",
  "PutThumbnail",
  "DeleteThumbnail",
  "GenerateSerializationByIds",
  "ImportEnvironment",
  "ResetStore",
  "GetAllAASXPackageIds",
  "GetAASXByPackageId",
  "PostAASXPackage",
  "PutAASXByPackageId",
  "DeleteAASXByPackageId",
];
