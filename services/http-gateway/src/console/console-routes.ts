/**
 * The web console's static files at /console/ (docs/console.md), and `/` redirecting there. The
 * console is a client of the public API like any other: it gets no route, credential or state of
 * its own from the gateway, so every gateway of a distributed installation serves the same files
 * and any of them can answer any of its requests.
 */
import { echoed } from "@twinport/shared";
import type { Hono } from "hono";
import { errorResponse } from "../http/error-response.ts";
import { type ConsoleFile, loadConsoleFiles } from "./console-files.ts";

export const CONSOLE_PATH = "/console/";

/**
 * The page may load only its own files and talk only to this origin (the API); images may also be
 * blob: URLs (thumbnails fetched with the bearer token) and data: URLs.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' blob: data:; object-src 'none'; base-uri 'self'; frame-ancestors 'none'";

/** The built files, read once per process however many endpoints (or test apps) serve them. */
let builtFiles: Map<string, ConsoleFile> | undefined;

export function mountConsole(app: Hono, files: Map<string, ConsoleFile> = (builtFiles ??= loadConsoleFiles())): void {
  app.get("/", (c) => c.redirect(CONSOLE_PATH, 302));
  app.get("/console", (c) => c.redirect(CONSOLE_PATH, 301));
  app.get(`${CONSOLE_PATH}*`, (c) => {
    const key = c.req.path.slice(CONSOLE_PATH.length);
    // A path the console does not have is one of its own views (no client-side routing yet) or a
    // mistake: index.html for the first, so a bookmark keeps working; 404 for a missing asset.
    const file = files.get(key) ?? (key.startsWith("assets/") ? undefined : files.get("index.html"));
    if (file === undefined) {
      const message =
        files.size === 0
          ? "The web console is not built here (run `npm run build`)"
          : `Nothing is served at ${echoed(c.req.path)}`;
      return errorResponse(c, { code: "not-found", message }, { includeErrorDetails: false });
    }
    return c.body(file.body, 200, {
      "Content-Type": file.contentType,
      "Cache-Control": file.immutable ? "public, max-age=31536000, immutable" : "no-cache",
      "Content-Security-Policy": CONTENT_SECURITY_POLICY,
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
    });
  });
}
