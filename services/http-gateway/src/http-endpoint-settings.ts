import { BUFFERED_BODIES_PER_MAX, DEFAULT_MAX_CONNECTIONS } from "@twinport/shared";

/**
 * The settings of one HTTP endpoint, with the property names of the configuration file
 * (spec §2.2/§2.3 plus Twinport's `host` and `maxRequestBodySize`). The config package produces
 * these objects; `httpEndpointSettings()` fills the documented defaults for tests and embedding.
 */
export interface HttpEndpointSettings {
  port: number;
  /** Bind address; "0.0.0.0" listens on every IPv4 interface. */
  host: string;
  sslEnabled: boolean;
  certificate?: {
    keyStoreType?: string;
    keyStorePath: string;
    keyStorePassword?: string;
    keyAlias?: string;
    keyPassword?: string;
  };
  sniEnabled: boolean;
  hostname?: string;
  includeErrorDetails: boolean;
  /** AAS service profiles served; empty means all. */
  profiles: string[];
  /** Bytes; larger request bodies answer 413. */
  maxRequestBodySize: number;
  /** Connections held at once; one more is closed as it arrives. */
  maxConnections: number;
  /** Bytes of request bodies held at once (declared lengths, arrival to answer); more answers 503. */
  maxBufferedRequestBodySize: number;
  corsEnabled: boolean;
  corsAllowCredentials: boolean;
  corsAllowedHeaders: string;
  corsAllowedMethods: string;
  corsAllowedOrigin: string;
  corsExposedHeaders: string;
  corsMaxAge: number;
  /** The web console at /console/ (and `/` redirecting there). */
  consoleEnabled: boolean;
  /** FA³ST's pathPrefix: the API is also served under it ("" = the root); /api/v3.0 always. */
  pathPrefix?: string;
  /** Serve the OpenAPI document and Swagger UI (docs/http-api.md, docs/adr/0032). */
  openApiEnabled: boolean;
}

export const DEFAULT_MAX_REQUEST_BODY_SIZE = 64 * 1024 * 1024;

export const DEFAULT_HTTP_ENDPOINT_SETTINGS: Readonly<HttpEndpointSettings> = Object.freeze({
  port: 443,
  host: "0.0.0.0",
  sslEnabled: true,
  sniEnabled: true,
  includeErrorDetails: false,
  profiles: [],
  maxRequestBodySize: DEFAULT_MAX_REQUEST_BODY_SIZE,
  maxConnections: DEFAULT_MAX_CONNECTIONS,
  maxBufferedRequestBodySize: BUFFERED_BODIES_PER_MAX * DEFAULT_MAX_REQUEST_BODY_SIZE,
  corsEnabled: false,
  corsAllowCredentials: false,
  corsAllowedHeaders: "*",
  corsAllowedMethods: "GET, POST, HEAD",
  corsAllowedOrigin: "*",
  corsExposedHeaders: "",
  corsMaxAge: 3600,
  consoleEnabled: true,
  openApiEnabled: true,
});

export function httpEndpointSettings(overrides: Partial<HttpEndpointSettings> = {}): HttpEndpointSettings {
  const maxRequestBodySize = overrides.maxRequestBodySize ?? DEFAULT_MAX_REQUEST_BODY_SIZE;
  // Derived as the configuration derives it, unless given.
  return {
    ...DEFAULT_HTTP_ENDPOINT_SETTINGS,
    profiles: [],
    maxBufferedRequestBodySize: BUFFERED_BODIES_PER_MAX * maxRequestBodySize,
    ...overrides,
  };
}
