import type { FileStore } from "../ports/index.ts";

/**
 * What a FileStore that outlives the model keeps about the model's packages and imports: records,
 * claims, intents and heartbeats, the packages' own bytes, a reset's mark. Embedded mode with the
 * model in memory and the files in a folder (fileStorage.path) lost the model at its last stop but
 * kept all of this: GET /packages then listed packages whose shells were gone, a GET of one answered
 * its bytes, and their files stayed held (a black-box finding).
 */
const MODEL_BOUND_PREFIXES = [
  "package-info:",
  "package:",
  "package-claim:",
  "package-pending:",
  "package-beat:",
  "import-files:",
  "reset-pending",
];

/**
 * Drops those entries; the files they named stay (the model about to be loaded may name them, as
 * FA³ST's existingDataPath does). Answers how many entries went.
 */
export async function forgetPackageRecords(files: FileStore): Promise<number> {
  let forgotten = 0;
  for (const prefix of MODEL_BOUND_PREFIXES)
    for (const info of await files.list(prefix)) if (await files.delete(info.path)) forgotten++;
  return forgotten;
}
