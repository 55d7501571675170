import { readdirSync, readFileSync } from "node:fs";
import { extname, resolve } from "node:path";
import type { Command, CommandResult, Reply } from "../contracts/index.ts";

/** An AAS environment file to load, read up front so a missing file fails before anything starts. */
export interface ModelFile {
  /** As given (for messages). */
  file: string;
  text: string;
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

function readModel(file: string, cwd: string): ModelFile {
  if (extname(file).toLowerCase() !== ".json") {
    throw new ModelFileError(`Model file '${file}': only JSON models (.json) are supported for now.`);
  }
  try {
    return { file, text: readFileSync(resolve(cwd, file), "utf8") };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ModelFileError(`Cannot read model file '${file}': ${code === "ENOENT" ? "no such file" : (error as Error).message}`);
  }
}

/** The `model.*` file in the working directory (spec §9: the default model file name). */
function defaultModelFile(cwd: string): string | undefined {
  const candidates = readdirSync(cwd).filter((name) => name.startsWith(`${DEFAULT_MODEL_NAME}.`) && extname(name) !== "");
  if (candidates.length === 0) return undefined;
  const json = candidates.find((name) => name.toLowerCase() === `${DEFAULT_MODEL_NAME}.json`);
  if (json) return json;
  throw new ModelFileError(
    `Found ${candidates.map((name) => `'${name}'`).join(", ")} in ${cwd}, but only JSON models are supported for now. Pass a JSON model with -m, or --empty-model.`,
  );
}

/** -m, else TWINPORT_MODEL, else persistence.initialModelFile, else model.* in the cwd; none with --empty-model. */
export function selectModelFiles(selection: ModelSelection): ModelFile[] {
  if (selection.emptyModel) return [];
  let files: readonly string[] = selection.modelFiles;
  if (files.length === 0 && selection.env.TWINPORT_MODEL) {
    files = selection.env.TWINPORT_MODEL.split(",").map((file) => file.trim()).filter((file) => file !== "");
  }
  if (files.length === 0 && selection.initialModelFile) files = [selection.initialModelFile];
  if (files.length === 0) {
    const found = defaultModelFile(selection.cwd);
    files = found ? [found] : [];
  }
  return files.map((file) => readModel(file, selection.cwd));
}

/** What loads the models: the engine, directly or through a StoreClient. */
export interface ModelLoader {
  execute(command: Command<"LoadEnvironment">): Promise<Reply<CommandResult<"LoadEnvironment">>>;
}

export interface LoadedModels {
  files: string[];
  shells: number;
  submodels: number;
  conceptDescriptions: number;
  /** True when the store already held data, so nothing was loaded (a restart over live data). */
  skipped: boolean;
}

/**
 * Loads the model files in order. With `onlyIfEmpty` the first file decides: if the store already
 * holds data nothing is loaded, so a restarted model-store never writes its seed over live data.
 */
export async function loadModelFiles(store: ModelLoader, models: readonly ModelFile[], options: { validate: boolean; onlyIfEmpty: boolean }): Promise<LoadedModels> {
  const result: LoadedModels = { files: [], shells: 0, submodels: 0, conceptDescriptions: 0, skipped: false };
  for (const [index, model] of models.entries()) {
    const reply = await store.execute({
      type: "LoadEnvironment",
      params: { body: model.text, validate: options.validate, onlyIfEmpty: options.onlyIfEmpty && index === 0 },
      origin: "load",
    });
    if (!reply.ok) {
      const details = reply.error.details ?? [];
      const shown = details.slice(0, 3).join("; ") + (details.length > 3 ? `; and ${details.length - 3} more` : "");
      const where = reply.error.path ? ` at ${reply.error.path}` : "";
      throw new ModelFileError(`Model file '${model.file}' could not be loaded${where}: ${reply.error.message}${shown ? ` (${shown})` : ""}`);
    }
    if (reply.value.skipped) return { ...result, skipped: true };
    result.files.push(model.file);
    result.shells += reply.value.shells;
    result.submodels += reply.value.submodels;
    result.conceptDescriptions += reply.value.conceptDescriptions;
  }
  return result;
}
