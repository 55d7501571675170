import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * What the trust folders hold, as one comparable string: every file's name, size and
 * modification time. Two equal states mean nothing was added, removed, renamed or rewritten
 * between them, so the certificate index built from the earlier one is still right. A missing
 * folder counts as empty. Costs one readdir and one stat per file: a PKI holds a handful to a
 * few hundred certificates, and a verification already costs a public-key operation.
 */
export function trustFoldersState(folders: readonly string[]): string {
  const parts: string[] = [];
  for (const folder of folders) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      names = [];
    }
    parts.push(folder);
    for (const name of names.sort()) {
      try {
        const stat = statSync(join(folder, name));
        parts.push(`${name}\u0000${stat.size}\u0000${stat.mtimeMs}\u0000${stat.ino}`);
      } catch {
        // removed between readdir and stat: the next check sees it gone
      }
    }
  }
  return parts.join("\n");
}
