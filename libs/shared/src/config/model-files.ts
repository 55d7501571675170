import { closeSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import { extname, resolve } from "node:path";
import type {
  Command,
  CommandResult,
  ImportDocument,
  ImportOutcome,
  ModelFilesImport,
  ModelFormat,
  Reply,
} from "../contracts/index.ts";
import { CommandError } from "../contracts/index.ts";

/**
 * An AAS model file to load. Found and opened up front, so a missing file fails before anything
 * starts; its content is read when it loads, in chunks (`path`), or was given in memory (tests).
 */
export interface ModelFile {
  /** As given (for messages). */
  file: string;
  /** Default: AASX with bytes, else JSON. */
  format?: ModelFormat;
  /** Where it is read from, in chunks, when it loads. */
  path?: string;
  /** JSON and XML: the text. */
  text?: string;
  /** AASX: the package. */
  bytes?: Uint8Array;
}

/** A model file that cannot be used; the process does not start. */
export class ModelFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelFileError";
  }
}

export interface ModelSelection {
  /** -m/--model, in order. */
  modelFiles: readonly string[];
  emptyModel: boolean;
  /** Source of TWINPORT_MODEL. */
  env: NodeJS.ProcessEnv;
  /** Where relative paths and the default model.* are looked up. */
  cwd: string;
  /** FA³ST's persistence.initialModelFile, when the configuration names one. */
  initialModelFile?: string;
}

const DEFAULT_MODEL_NAME = "model";
const FORMAT_BY_EXTENSION: Record<string, ModelFormat> = { ".json": "json", ".xml": "xml", ".aasx": "aasx" };
const KNOWN = "JSON (.json), XML (.xml) or AASX (.aasx)";

/** By extension; a file without a known one by its first bytes (a zip starts with "PK"). */
function formatOf(file: string, bytes: Buffer): ModelFormat {
  const byExtension = FORMAT_BY_EXTENSION[extname(file).toLowerCase()];
  if (byExtension) return byExtension;
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return "aasx";
  const start = bytes
    .subarray(0, 64)
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .trimStart();
  if (start.startsWith("{")) return "json";
  if (start.startsWith("<")) return "xml";
  throw new ModelFileError(`Model file '${file}': cannot tell its format; use ${KNOWN}.`);
}

/** Opened and its first bytes read (its format, and that it can be read); the rest is read when it loads. */
function findModel(file: string, cwd: string): ModelFile {
  const path = resolve(cwd, file);
  const start = Buffer.alloc(64);
  let length: number;
  try {
    const descriptor = openSync(path, "r");
    try {
      length = readSync(descriptor, start, 0, start.length, 0);
    } finally {
      closeSync(descriptor);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ModelFileError(
      `Cannot read model file '${file}': ${code === "ENOENT" ? "no such file" : (error as Error).message}`,
    );
  }
  return { file, format: formatOf(file, start.subarray(0, length)), path };
}

/** The `model.*` file in the working directory (spec §9.5: the default model file name). */
function defaultModelFile(cwd: string): string | undefined {
  const candidates = readdirSync(cwd).filter(
    (name) => name.startsWith(`${DEFAULT_MODEL_NAME}.`) && extname(name) !== "",
  );
  if (candidates.length === 0) return undefined;
  const usable = candidates.filter(
    (name) => name.slice(DEFAULT_MODEL_NAME.length).toLowerCase() in FORMAT_BY_EXTENSION,
  );
  if (usable.length === 1) return usable[0];
  const listed = candidates.map((name) => `'${name}'`).join(", ");
  if (usable.length === 0)
    throw new ModelFileError(`Found ${listed} in ${cwd}, but a model is ${KNOWN}. Pass one with -m, or --empty-model.`);
  throw new ModelFileError(
    `Found several default models (${usable.map((name) => `'${name}'`).join(", ")}) in ${cwd}. Pass the ones to load with -m, or --empty-model.`,
  );
}

/** -m, else TWINPORT_MODEL, else persistence.initialModelFile, else model.* in the cwd; none with --empty-model. */
export function selectModelFiles(selection: ModelSelection): ModelFile[] {
  if (selection.emptyModel) return [];
  let files: readonly string[] = selection.modelFiles;
  if (files.length === 0 && selection.env.TWINPORT_MODEL) {
    files = selection.env.TWINPORT_MODEL.split(",")
      .map((file) => file.trim())
      .filter((file) => file !== "");
  }
  if (files.length === 0 && selection.initialModelFile) files = [selection.initialModelFile];
  if (files.length === 0) {
    const found = defaultModelFile(selection.cwd);
    files = found ? [found] : [];
  }
  return files.map((file) => findModel(file, selection.cwd));
}

/** What loads the models: the engine, directly or through a StoreClient. */
export interface ModelLoader {
  execute(command: Command<"ImportEnvironment">): Promise<Reply<CommandResult<"ImportEnvironment">>>;
  /** The engine itself: reads the files in chunks instead of receiving them whole in a command. */
  importModelFiles?(request: ModelFilesImport): Promise<ImportOutcome>;
}

export interface LoadedModels {
  files: string[];
  shells: number;
  submodels: number;
  conceptDescriptions: number;
  /** Submodel elements, nested ones included. */
  elements: number;
  /** Files the AASX packages carried, now in the file storage. */
  storedFiles: number;
  /** True when the store already held data, so nothing was loaded (a restart over live data). */
  skipped: boolean;
}

function fileOf(model: ModelFile): ModelFilesImport["files"][number] {
  if (model.path !== undefined && model.text === undefined && model.bytes === undefined)
    return { source: model.file, format: model.format ?? "json", path: model.path };
  const document = documentOf(model);
  return { source: model.file, format: document.format, document };
}

function documentOf(model: ModelFile): ImportDocument {
  if (model.bytes === undefined && model.text === undefined && model.path !== undefined) {
    const bytes = readFileSync(model.path);
    model = model.format === "aasx" ? { ...model, bytes } : { ...model, text: bytes.toString("utf8") };
  }
  if (model.bytes !== undefined)
    return {
      source: model.file,
      format: model.format ?? "aasx",
      contentBase64: Buffer.from(model.bytes).toString("base64"),
    };
  return { source: model.file, format: model.format ?? "json", text: model.text ?? "" };
}

/**
 * Loads the model files as ONE import: their identifiables are merged (the same identifiable in
 * two files collapses; the same id with different content is an error naming both files), checked
 * all-or-nothing, and only then written; AASX files land in the file storage. With `onlyIfEmpty`
 * nothing is loaded into a store that already holds data, so a restarted model-store never writes
 * its seed over live data.
 */
export async function loadModelFiles(
  store: ModelLoader,
  models: readonly ModelFile[],
  options: { validate: boolean; onlyIfEmpty: boolean; resume?: boolean },
): Promise<LoadedModels> {
  const result: LoadedModels = {
    files: [],
    shells: 0,
    submodels: 0,
    conceptDescriptions: 0,
    elements: 0,
    storedFiles: 0,
    skipped: false,
  };
  if (models.length === 0) return result;
  // resume: finish a load that was interrupted after it had passed every check and begun writing.
  // What was written already is a conflict to step over; anything else is still an error.
  const mode = options.resume ? "partial" : "all-or-nothing";
  const onlyIfEmpty = options.resume ? false : options.onlyIfEmpty;
  const reply = store.importModelFiles
    ? await store
        .importModelFiles({ files: models.map(fileOf), mode, validate: options.validate, onlyIfEmpty, origin: "load" })
        .then(
          (value): Reply<ImportOutcome> => ({ ok: true, value }),
          (error: unknown): Reply<ImportOutcome> => {
            if (!(error instanceof CommandError)) throw error;
            return { ok: false, error: { code: error.code, message: error.message, details: error.details } };
          },
        )
    : await store.execute({
        type: "ImportEnvironment",
        params: { documents: models.map(documentOf), mode, validate: options.validate, onlyIfEmpty },
        origin: "load",
      });
  if (!reply.ok) throw loadError(models, reply.error.message, reply.error.details ?? []);
  const unexpected = reply.value.problems.filter((problem) => problem.code !== "conflict");
  if (unexpected.length > 0)
    throw loadError(
      models,
      unexpected[0]!.text,
      unexpected.flatMap((problem) => problem.details ?? []),
    );
  if (reply.value.skipped) return { ...result, skipped: true };
  return {
    files: models.map((model) => model.file),
    shells: reply.value.shells,
    submodels: reply.value.submodels,
    conceptDescriptions: reply.value.conceptDescriptions,
    elements: reply.value.elements,
    storedFiles: reply.value.files,
    skipped: false,
  };
}

/** The engine names the document first ("a.json: …", "a.json, submodels[2] ('id'): …"). */
function loadError(models: readonly ModelFile[], message: string, details: string[]): ModelFileError {
  const shown = details.slice(0, 3).join("; ") + (details.length > 3 ? `; and ${details.length - 3} more` : "");
  const suffix = shown && !message.includes(shown) ? ` (${shown})` : "";
  const culprit = models.find(
    (model) => message.startsWith(`${model.file}: `) || message.startsWith(`${model.file}, `),
  );
  if (!culprit) return new ModelFileError(`The model files could not be loaded: ${message}${suffix}`);
  const rest = message.slice(culprit.file.length + 2);
  return new ModelFileError(`Model file '${culprit.file}' could not be loaded: ${rest}${suffix}`);
}
