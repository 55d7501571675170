/**
 * The built web console (console/ in the repository, built by scripts/build.ts with Vite into
 * console/dist): read once into memory, so serving a file costs no disk access and no path from a
 * request ever reaches the file system. The folder is found relative to this file, which sits at the
 * same depth in src/ (source mode) and dist/ (compiled), and in the image (Dockerfile copies
 * console/dist beside the services).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { staticContentType } from "../http/static-files.ts";

export const CONSOLE_DIST = fileURLToPath(new URL("../../../../console/dist/", import.meta.url));

export interface ConsoleFile {
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
  /** Vite puts a content hash in every name under assets/: such a file never changes. */
  immutable: boolean;
}

/** The files by their path below /console/ ("index.html", "assets/index-3f2a.js"); empty when not built. */
export function loadConsoleFiles(dir: string = CONSOLE_DIST): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const key = relative(dir, path).split(sep).join("/");
        const body = new Uint8Array(readFileSync(path));
        // The types of every static folder the endpoint serves; anything else Vite emits goes as bytes.
        const contentType = staticContentType(name) ?? "application/octet-stream";
        files.set(key, { body, contentType, immutable: key.startsWith("assets/") });
      }
    }
  };
  try {
    walk(dir);
  } catch {
    // Not built (a checkout without `npm run build`, or a production install without the build
    // stage): the routes answer that, and the rest of the endpoint works as before.
  }
  return files;
}
