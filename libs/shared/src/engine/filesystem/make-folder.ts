import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/**
 * `mkdir -p` without Node's `recursive: true`. That mode, sync and async alike, retries forever
 * when the kernel answers ENOENT for a folder whose parent exists: any folder under /proc
 * (`fileStorage.path` `/proc/1/x` hung the start inside mkdirSync, with no line in the log). Here
 * each missing folder is made once, from the deepest existing one down, and the first refusal is an
 * error naming the folder.
 */
export function makeFolder(path: string): void {
  const missing: string[] = [];
  for (let at = resolve(path); !isFolder(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break; // the root itself is no folder: mkdir says why below
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (error) {
      // Another process (a second replica sharing the folder) made it meanwhile.
      if ((error as NodeJS.ErrnoException).code === "EEXIST" && isFolder(folder)) continue;
      throw new Error(`cannot create the folder '${folder}': ${(error as Error).message}`);
    }
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false; // e.g. EACCES on a parent: mkdir then names the refusal
  }
}
