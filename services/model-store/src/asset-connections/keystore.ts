import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";

/** FA³ST's lookup: the path as given (absolute or from the working directory), then below the base directory. */
export function findKeyStore(path: string, baseDir: string): string | undefined {
  if (existsSync(path)) return path;
  const below = join(baseDir, path);
  return !isAbsolute(path) && existsSync(below) ? below : undefined;
}
