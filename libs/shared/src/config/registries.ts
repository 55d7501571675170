import { z } from "zod";

/**
 * Registry synchronization settings (core.aasRegistries, core.submodelRegistries,
 * core.registrySynchronization): FA³ST's names, so its files load, plus the retry, reconcile and
 * shutdown bounds docs/adr/0012 adds. Every registry gets every request; there is no primary.
 */

/** RFC 9110 token: what a header name may contain. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A header value must not smuggle a second header or request line. */
const HEADER_VALUE = /^[^\r\n\0]*$/;

const headerNameSchema = z
  .string()
  .regex(HEADER_NAME, { error: "expected an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)" });
const headerValueSchema = z
  .string()
  .regex(HEADER_VALUE, { error: "a header value must not contain line breaks or NUL" });

const registryUrlSchema = z.string().refine(
  (text) => {
    try {
      const url = new URL(text);
      return (url.protocol === "http:" || url.protocol === "https:") && url.search === "" && url.hash === "";
    } catch {
      return false;
    }
  },
  {
    error: "expected an http:// or https:// URL without query or fragment, e.g. https://registry.example.com/api/v3.0",
  },
);

/** API versions in a path end: `…/api/v3.0` (FA³ST main writes the prefix into the URL). */
const API_PREFIX_END = /\/api\/v\d+(?:\.\d+)*$/;

/**
 * The registry's API root, ending in "/", so relative paths keep every segment of it
 * (`new URL("/x", base)` would drop them: FA³ST 1.3.0's bug). FA³ST 1.3.0 documents URLs without
 * the API prefix and main with it; both work: a URL that already ends in /api/vX.Y is the root,
 * any other gets /api/v3.0 appended.
 */
export function registryApiRoot(url: string): string {
  const parsed = new URL(url);
  const path = parsed.pathname.replace(/\/+$/, "");
  parsed.pathname = `${API_PREFIX_END.test(path) ? path : `${path}/api/v3.0`}/`;
  return parsed.toString();
}

// A plain URL string (FA³ST) is read as {url}: errors then name the exact part that is wrong.
const registryEntrySchema = z
  .preprocess(
    (entry) => (typeof entry === "string" ? { url: entry } : entry),
    z.strictObject(
      {
        url: registryUrlSchema,
        /** Added to every request to this registry, after (and over) registrySynchronization.auth. */
        headers: z.record(headerNameSchema, headerValueSchema).default({}),
      },
      { error: 'expected a registry URL or an object {"url": "...", "headers": {"Name": "value"}}' },
    ),
  )
  .transform(({ url, headers }) => ({ url, apiRoot: registryApiRoot(url), headers }));

export const registryListSchema = z.array(registryEntrySchema).default([]);

const blank = (text: string | null | undefined): boolean => text === null || text === undefined || text.trim() === "";

const registryAuthSchema = z
  .strictObject({
    header: z.strictObject({ name: z.string().nullish(), value: z.string().nullish() }).nullish(),
  })
  .nullish()
  .superRefine((auth, ctx) => {
    const header = auth?.header;
    if (!header || blank(header.name) || blank(header.value)) return;
    if (!HEADER_NAME.test(header.name!))
      ctx.addIssue({
        code: "custom",
        path: ["header", "name"],
        message: "expected an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)",
      });
    if (!HEADER_VALUE.test(header.value!))
      ctx.addIssue({
        code: "custom",
        path: ["header", "value"],
        message: "a header value must not contain line breaks or NUL",
      });
  })
  .transform((auth) => {
    const header = auth?.header;
    if (!header || blank(header.name) || blank(header.value)) return undefined;
    return { header: { name: header.name!, value: header.value! } };
  });

export const registrySynchronizationSchema = z
  .strictObject({
    /**
     * FA³ST main: one static header on every registry request (e.g. Authorization: Bearer …), "only
     * applied if both are set" (FA³ST's words): an empty, null or half-set auth sends no header, as
     * there (a missing token variable must not become an empty Authorization header).
     */
    auth: registryAuthSchema,
    /** First retry delay in ms after a network error, timeout or 5xx; doubled per failure. */
    retryMinDelay: z.number().int().min(1).default(1000),
    /** Cap of the retry delay in ms. */
    retryMaxDelay: z.number().int().min(1).default(60_000),
    /** One registry request that takes longer than this many ms counts as failed and is retried. */
    requestTimeout: z.number().int().min(1).default(10_000),
    /** Every this many ms each registry is compared with what it should hold and repaired; 0 = never. */
    reconcileInterval: z.number().int().min(0).default(300_000),
    /** FA³ST deletes its descriptors when it stops; false keeps them across restarts. */
    unregisterOnShutdown: z.boolean().default(true),
    /** Bound in ms of all the DELETEs of an orderly shutdown together. */
    shutdownTimeout: z.number().int().min(1).default(3000),
  })
  .refine((value) => value.retryMaxDelay >= value.retryMinDelay, {
    error: "retryMaxDelay must not be below retryMinDelay",
    path: ["retryMaxDelay"],
  })
  // No auth is no key at all (as before auth could be given empty).
  .transform(({ auth, ...rest }) => (auth ? { auth, ...rest } : rest))
  .default({
    retryMinDelay: 1000,
    retryMaxDelay: 60_000,
    requestTimeout: 10_000,
    reconcileInterval: 300_000,
    unregisterOnShutdown: true,
    shutdownTimeout: 3000,
  });

export type RegistryConfig = z.output<typeof registryEntrySchema>;
export type RegistrySynchronizationConfig = z.output<typeof registrySynchronizationSchema>;
