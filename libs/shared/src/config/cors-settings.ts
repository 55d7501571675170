import { z } from "zod";

/**
 * The HTTP endpoint's cors* texts, in FA³ST's format: comma-separated lists sent as the
 * Access-Control-* headers (http/cors-policy.ts in the http-gateway). Checked when loaded, from a
 * file, the environment or the command line alike: `corsAllowedMethods=["GET","PATCH"]` (JSON where
 * a list was meant) was sent to browsers as it stood, and CORS failed in the browser instead of here.
 */

/** RFC 9110 §5.6.2 token: what a method and a header name are made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function items(text: string): string[] {
  return text.split(",").map((item) => item.trim());
}

/** Empty (nothing) or comma-separated tokens; `required`: at least one. */
function tokenList(what: string, example: string, required: boolean) {
  return z
    .string()
    .refine((text) => (!required && text.trim() === "") || items(text).every((item) => TOKEN.test(item)), {
      error: `expected ${required ? "" : "nothing or "}comma-separated ${what}, such as "${example}"`,
    });
}

export const corsAllowedMethodsSchema = tokenList("HTTP methods", "GET, POST, HEAD", true).default("GET, POST, HEAD");
export const corsAllowedHeadersSchema = tokenList("header names", "Content-Type, Authorization", false).default("*");
export const corsExposedHeadersSchema = tokenList("header names", "ETag, Twinport-Warning", false).default("");

/**
 * The request's Origin is compared with each entry as text (cors-policy.ts, cross-site-requests.ts),
 * and a browser sends it serialized: scheme://host[:port], lower case, no default port, no path.
 * An entry in any other spelling ("https://example.com/") would never match, so it is refused.
 */
function isOrigin(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const origin = new URL(text).origin;
  return origin !== "null" && origin === text;
}

/**
 * A host without a scheme ("localhost", FA³ST's own documented example): no browser sends it, so
 * it lets nobody in, but FA³ST files carrying it must load (docs/faaast-compatibility.md). It loads
 * with a warning (corsOriginWarnings); anything else that is no origin is refused.
 */
function isBareHost(text: string): boolean {
  // "null" is the Origin of sandboxed frames and file: pages: letting it in would let in any of them.
  return text !== "null" && /^[a-z0-9.-]+(?::\d{1,5})?$/.test(text) && URL.canParse(`http://${text}`);
}

export const corsAllowedOriginSchema = z
  .string()
  .refine((text) => text.trim() === "*" || items(text).every((item) => isOrigin(item) || isBareHost(item)), {
    error:
      'expected "*" or comma-separated origins as browsers send them (scheme://host[:port], lower case, no path or trailing slash), such as "https://app.example.com, http://localhost:3000"',
  })
  .default("*");

/** Warnings for the entries of a loaded corsAllowedOrigin that no browser's Origin can match. */
export function corsOriginWarnings(corsAllowedOrigin: string, at: string): string[] {
  if (corsAllowedOrigin.trim() === "*") return [];
  return items(corsAllowedOrigin)
    .filter((item) => !isOrigin(item))
    .map(
      (item) =>
        `'${at}' names '${item}', which has no scheme: browsers send an Origin such as 'http://${item}', so this entry lets no page in. Write the origin in full (scheme://host[:port])`,
    );
}

/** Fetch standard, CORS check: a credentialed request fails when Access-Control-Allow-Origin is `*`. */
export function credentialsWithAnyOrigin(endpoint: { corsAllowCredentials: unknown; corsAllowedOrigin: unknown }) {
  return (
    endpoint.corsAllowCredentials === true &&
    typeof endpoint.corsAllowedOrigin === "string" &&
    endpoint.corsAllowedOrigin.trim() === "*"
  );
}
