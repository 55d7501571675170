import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { contentTypeByName, OCTET_STREAM } from "../files/content-types.ts";
import { fileKeyOf } from "../files/file-paths.ts";
import type { FileStore } from "../ports/file-store.ts";

/**
 * FA³ST's `fileStorage.existingDataPath`: files that should be there from the start and are never
 * modified. Each regular file under `directory` is copied into the store under the File value its
 * relative path spells (`<dir>/aasx/files/a.pdf` → `/aasx/files/a.pdf`), unless the store already
 * has a file there: what the API wrote since wins, and the directory itself is only read, so the
 * originals stay untouched whatever the API does. Symbolic links are skipped (they could point out
 * of the directory the operator named).
 */
export async function copyExistingFiles(
  store: FileStore,
  directory: string,
): Promise<{ copied: number; kept: number }> {
  let entries: Dirent[];
  try {
    entries = await readdir(directory, { recursive: true, withFileTypes: true });
  } catch (error) {
    throw new Error(`fileStorage.existingDataPath '${directory}' cannot be read: ${(error as Error).message}`);
  }
  let copied = 0;
  let kept = 0;
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    const modelPath = `/${relative(directory, file).split(sep).join("/")}`;
    const key = fileKeyOf(modelPath);
    if (key === undefined) continue;
    if (await store.get(key)) {
      kept++;
      continue;
    }
    // Create only: a file the API stored meanwhile wins too.
    const created = await store.create(key, {
      contentType: contentTypeByName(entry.name) ?? OCTET_STREAM,
      bytes: new Uint8Array(await readFile(file)),
    });
    if (created) copied++;
    else kept++;
  }
  return { copied, kept };
}
