import { readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname, join, relative, sep } from "node:path";
import { echoed } from "@twinport/shared";
import type { Context, Handler } from "hono";
import { ApiError } from "./api-error.ts";

/** What a file of a static folder is served as; only these extensions are served at all. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/** The type a static file is served as, by its name; undefined for an extension not served. */
export function staticContentType(name: string): string | undefined {
  return CONTENT_TYPES[extname(name)];
}

export interface StaticFilesOptions {
  /** The folder whose files are served, sub-folders included (a bundler's `assets/`). */
  folder: string;
  /** Where the files are mounted, e.g. "/api/v3.0/swagger-ui"; the folder's index is served at `${mount}/`. */
  mount: string;
  /** Files made at start-up instead of read from the folder (a pre-configured initializer, …). */
  generated?: Readonly<Record<string, string>>;
  index?: string;
}

/**
 * A GET handler serving a folder of a package (Swagger UI, the web console's build) from memory
 * after the first read. Only the files listed when the server starts are served, by their relative
 * path, so a request can never name a file outside the folder (no `..`, no encoded slashes). `${mount}` without its
 * slash is redirected to `${mount}/`, so the pages' relative links resolve inside the mount.
 * Register it on both `${mount}` and `${mount}/*`.
 */
export function staticFiles(options: StaticFilesOptions): Handler {
  const index = options.index ?? "index.html";
  const generated = options.generated ?? {};
  const names = new Set(
    readdirSync(options.folder, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && CONTENT_TYPES[extname(entry.name)] !== undefined)
      .map((entry) => relative(options.folder, join(entry.parentPath, entry.name)).split(sep).join("/")),
  );
  for (const name of Object.keys(generated)) names.add(name);
  const cache = new Map<string, Buffer>();

  return async (c: Context) => {
    const pathname = new URL(c.req.url).pathname;
    if (pathname === options.mount) return c.redirect(`${options.mount}/`, 301);
    // Decoding is safe: only a name from the listing is ever read.
    const name = pathname === `${options.mount}/` ? index : decoded(pathname.slice(options.mount.length + 1));
    // The app's error handler renders it as the AAS Result, like every other 404.
    if (!names.has(name)) throw ApiError.of("not-found", `Nothing is served at ${echoed(pathname)}`);
    let body = cache.get(name);
    if (body === undefined) {
      body = generated[name] !== undefined ? Buffer.from(generated[name]) : await readFile(join(options.folder, name));
      cache.set(name, body);
    }
    return c.body(new Uint8Array(body), 200, {
      "Content-Type": CONTENT_TYPES[extname(name)]!,
      // The files change only with an upgrade: a browser checks them again on each visit.
      "Cache-Control": "no-cache",
      "X-Content-Type-Options": "nosniff",
      // Swagger UI sends writes with a stored token: no other site may frame it (clickjacking).
      "Content-Security-Policy": "frame-ancestors 'none'",
      "X-Frame-Options": "DENY",
    });
  };
}

function decoded(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
