import { z } from "zod";
import { advertisedHostnameSchema } from "./advertised-hostname.ts";
import {
  corsAllowedHeadersSchema,
  corsAllowedMethodsSchema,
  corsAllowedOriginSchema,
  corsExposedHeadersSchema,
  credentialsWithAnyOrigin,
} from "./cors-settings.ts";
import { portSchema, profilesSchema } from "./endpoint-common.ts";
import { consoleEnabledSchema } from "./http-console.ts";

export const HTTP_ENDPOINT_CLASS = "endpoint.http.HttpEndpoint";

/** `maxConnections`' default: far above what a plant's clients open, well below a common 20,000-descriptor limit. */
export const DEFAULT_MAX_CONNECTIONS = 8192;

/** `maxBufferedRequestBodySize`'s default, in bodies of maxRequestBodySize. */
export const BUFFERED_BODIES_PER_MAX = 4;

/** Spec §2.3 CertificateInfo: a PKCS12 (or other) key store holding the HTTPS certificate. */
export const certificateInfoSchema = z.strictObject({
  keyStoreType: z.string().default("PKCS12"),
  keyStorePath: z.string().min(1),
  keyStorePassword: z.string().optional(),
  keyAlias: z.string().optional(),
  keyPassword: z.string().optional(),
});

/**
 * Spec §2.2/§2.3 exactly, plus documented extensions: `host` (bind address),
 * `maxRequestBodySize`, `maxConnections`, `maxBufferedRequestBodySize`, `consoleEnabled` (http-console.ts) and `openApiEnabled`. `isCorsEnabled` is the name an earlier release used for `corsEnabled`.
 */
export const httpEndpointSchema = z
  .strictObject({
    "@class": z.literal(HTTP_ENDPOINT_CLASS),
    profiles: profilesSchema,
    certificate: certificateInfoSchema.optional(),
    corsAllowCredentials: z.boolean().default(false),
    corsAllowedHeaders: corsAllowedHeadersSchema,
    corsAllowedMethods: corsAllowedMethodsSchema,
    corsAllowedOrigin: corsAllowedOriginSchema,
    corsEnabled: z.boolean().optional(),
    isCorsEnabled: z.boolean().optional(),
    corsExposedHeaders: corsExposedHeadersSchema,
    corsMaxAge: z.number().int().min(0).default(3600),
    /** Name used in registry descriptors; absent = auto-detected. */
    hostname: advertisedHostnameSchema.optional(),
    includeErrorDetails: z.boolean().default(false),
    port: portSchema.default(443),
    sniEnabled: z.boolean().default(true),
    sslEnabled: z.boolean().default(true),
    /**
     * FA³ST main: where the API is served. Twinport serves it there and always under /api/v3.0
     * too, so clients written for either keep working ("" or "/": at the root).
     */
    pathPrefix: z
      .string()
      .regex(/^(?:|\/|\/.*[^/])$/, { error: 'expected "", "/" or a path starting with "/" and not ending with "/"' })
      .refine((value) => !/[?#%\\]|\/\.{1,2}(?:\/|$)|\/\//.test(value), {
        error: "expected a plain path: no query, fragment, percent escapes, backslashes, dot or empty segments",
      })
      .default("/api/v3.0")
      .transform((value) => (value === "/" ? "" : value)),
    /** Extension: the address to bind. */
    host: z.string().min(1).default("0.0.0.0"),
    /** Extension: request bodies above this many bytes answer 413. */
    maxRequestBodySize: z
      .number()
      .int()
      .min(1)
      .default(64 * 1024 * 1024),
    /**
     * Extension: connections held open at once; one more is closed as it arrives (HTTP has no
     * answer before a request, TLS none before its handshake). Each takes a file descriptor, and
     * 20,000 idle ones from one client used up the process's, so nothing else could open a file.
     */
    maxConnections: z.number().int().min(1).default(DEFAULT_MAX_CONNECTIONS),
    /**
     * Extension: bytes of request bodies the endpoint holds at once, counted by what each request
     * declares (a chunked one as maxRequestBodySize) from its arrival to its answer; a request that
     * would pass it answers 503 unread. Default: 4 × maxRequestBodySize.
     */
    maxBufferedRequestBodySize: z.number().int().min(1).optional(),
    /** Extension: the web console at /console/. */
    consoleEnabled: consoleEnabledSchema,
    /** Extension: serve the OpenAPI document (/api/v3.0/openapi.json) and Swagger UI (/api/v3.0/swagger-ui/). */
    openApiEnabled: z.boolean().default(true),
  })
  .refine(
    (value) =>
      value.corsEnabled === undefined || value.isCorsEnabled === undefined || value.corsEnabled === value.isCorsEnabled,
    {
      error: "corsEnabled and its older name isCorsEnabled are both set, to different values",
      path: ["isCorsEnabled"],
    },
  )
  .refine(
    (value) =>
      value.maxBufferedRequestBodySize === undefined || value.maxBufferedRequestBodySize >= value.maxRequestBodySize,
    {
      error:
        "maxBufferedRequestBodySize is smaller than maxRequestBodySize: a body of the allowed size could never be taken",
      path: ["maxBufferedRequestBodySize"],
    },
  )
  .refine((value) => !credentialsWithAnyOrigin(value), {
    error:
      'corsAllowCredentials true needs the origins named in corsAllowedOrigin: browsers refuse a credentialed answer that allows origin "*"',
    path: ["corsAllowCredentials"],
  })
  .transform(({ isCorsEnabled, corsEnabled, maxBufferedRequestBodySize, ...rest }) => ({
    ...rest,
    maxBufferedRequestBodySize: maxBufferedRequestBodySize ?? BUFFERED_BODIES_PER_MAX * rest.maxRequestBodySize,
    corsEnabled: corsEnabled ?? isCorsEnabled ?? false,
  }));

export type HttpEndpointConfig = z.output<typeof httpEndpointSchema>;
