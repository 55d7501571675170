import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";

/**
 * A stored file is written whole under `<name>.<random>.tmp` and then moved into place; a process
 * killed in between (SIGKILL, OOM, power) leaves the temporary behind, as large as the upload was,
 * and nothing else ever names it. So a FileStore opening its folder removes the temporaries older
 * than `olderThanMs`: one that young may belong to a replica writing into the same folder right now
 * (a write is bounded by the 120 s file-command budget, so a quarter of an hour is far beyond any
 * live one). Returns how many it removed.
 */
export const STALE_TEMPORARY_MS = 15 * 60_000;

export async function removeStaleTemporaries(
  directory: string,
  suffix: string,
  olderThanMs = STALE_TEMPORARY_MS,
  now = Date.now(),
): Promise<number> {
  let removed = 0;
  for (const name of await readdir(directory)) {
    if (!name.endsWith(suffix)) continue;
    const file = join(directory, name);
    // Gone meanwhile (its writer finished, or another replica swept it): nothing to do.
    const modified = await stat(file).then(
      (info) => info.mtimeMs,
      () => undefined,
    );
    if (modified === undefined || now - modified < olderThanMs) continue;
    await rm(file, { force: true });
    removed++;
  }
  return removed;
}
