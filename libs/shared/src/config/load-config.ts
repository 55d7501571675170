import { readFileSync } from "node:fs";
import { isAasError, refuseProtoKeys } from "../aas/index.ts";
import { isPlainObject } from "../aas/plain-object.ts";
import { classSuffix } from "./class-names.ts";
import { ConfigError } from "./config-error.ts";
import { ENDPOINT_CLASS_BY_KIND, type EndpointKind, endpointKindOf } from "./endpoints.ts";
import { readFileScalars } from "./file-scalars.ts";
import { FILE_STORAGE_IN_MEMORY_CLASS, FILE_STORAGE_REDIS_CLASS } from "./file-storage.ts";
import { MESSAGE_BUS_INTERNAL_CLASS, MESSAGE_BUS_NATS_CLASS } from "./message-bus.ts";
import { opcuaUserLoginFindings } from "./opcua-user-logins.ts";
import { applyCliOverrides, applyEnvOverrides, classedObjectMembers, type ValueOrigins } from "./overrides.ts";
import { PERSISTENCE_IN_MEMORY_CLASS, PERSISTENCE_REDIS_CLASS } from "./persistence.ts";
import { type TwinportConfig, validateConfigWithWarnings } from "./validate-config.ts";

export type ConfigRole = "embedded" | "model-store" | "http-gateway" | "opcua-gateway";

export interface LoadConfigOptions {
  role: ConfigRole;
  /** JSON file in the spec's shape; absent = `env.TWINPORT_CONFIG`, else built-in defaults only. */
  configFile?: string;
  /** `path=value` from the command line; they win over the environment. */
  overrides?: string[];
  /** Source of TWINPORT_* overrides; the caller passes the environment in, nothing is read implicitly. */
  env?: NodeJS.ProcessEnv;
  /** `--endpoint`: keep only these endpoint kinds, adding a default entry for a missing one. */
  endpointKinds?: EndpointKind[];
}

export interface LoadedConfig {
  config: TwinportConfig;
  warnings: string[];
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `Cannot read config file '${file}': ${code === "ENOENT" ? "no such file" : (error as Error).message}`,
    );
  }
  // A byte order mark (Windows editors write one) is no JSON, but says nothing else: read past it,
  // as the model files are (the refusal quoted an invisible character).
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`Config file '${file}' is not valid JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(parsed)) throw new ConfigError(`Config file '${file}' must contain a JSON object`);
  // The overrides and defaults are assigned into this object: a "__proto__" member must not get there.
  try {
    refuseProtoKeys(parsed, text);
  } catch (error) {
    if (isAasError(error)) throw new ConfigError(`Config file '${file}': ${error.message}`);
    throw error;
  }
  return parsed;
}

/**
 * Sections a file leaves out get the role's defaults: embedded mode runs on memory and the internal
 * bus; the distributed roles only make sense with Redis and NATS. Filled in before the overrides,
 * so `persistence.url=...` or TWINPORT_PERSISTENCE_URL adjust the default.
 */
function fillRoleDefaults(raw: Record<string, unknown>, role: ConfigRole): void {
  const distributed = role !== "embedded";
  // FA³ST's default is HTTP only; ours serves both endpoints, as docs/architecture.md §8 decides.
  raw.endpoints ??= [{ "@class": ENDPOINT_CLASS_BY_KIND.http }, { "@class": ENDPOINT_CLASS_BY_KIND.opcua }];
  raw.persistence ??= { "@class": distributed ? PERSISTENCE_REDIS_CLASS : PERSISTENCE_IN_MEMORY_CLASS };
  raw.messageBus ??= { "@class": distributed ? MESSAGE_BUS_NATS_CLASS : MESSAGE_BUS_INTERNAL_CLASS };
  raw.fileStorage ??= defaultFileStorage(raw, distributed);
}

/**
 * Files live where the model lives (docs/adr/0055): an embedded process on Redis kept its model
 * across a restart and lost every uploaded file with a file store in memory.
 */
function defaultFileStorage(raw: Record<string, unknown>, distributed: boolean): { "@class": string } {
  const persistence = raw.persistence;
  const onRedis =
    distributed ||
    (isPlainObject(persistence) &&
      typeof persistence["@class"] === "string" &&
      classSuffix(persistence["@class"]) === PERSISTENCE_REDIS_CLASS);
  return { "@class": onRedis ? FILE_STORAGE_REDIS_CLASS : FILE_STORAGE_IN_MEMORY_CLASS };
}

/** Keeps the endpoints of the named kinds, in file order, and appends a default one for a missing kind. */
function keepEndpointKinds(raw: Record<string, unknown>, kinds: readonly EndpointKind[]): void {
  if (!Array.isArray(raw.endpoints)) return; // validation reports it
  const kindOf = (entry: unknown): EndpointKind | undefined =>
    isPlainObject(entry) && typeof entry["@class"] === "string"
      ? endpointKindOf(classSuffix(entry["@class"]))
      : undefined;
  // Entries with an unknown @class stay, so validation names them instead of dropping them silently.
  const kept = raw.endpoints.filter((entry) => {
    const kind = kindOf(entry);
    return kind === undefined || kinds.includes(kind);
  });
  for (const kind of new Set(kinds)) {
    if (!kept.some((entry) => kindOf(entry) === kind)) kept.push({ "@class": ENDPOINT_CLASS_BY_KIND[kind] });
  }
  raw.endpoints = kept;
}

/** File (or defaults), then --endpoint, then environment, then command line; then property defaults and validation. */
export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const env = options.env ?? {};
  const file = options.configFile ?? env.TWINPORT_CONFIG;
  const raw: Record<string, unknown> = file ? readConfigFile(file) : {};
  readFileScalars(raw);
  // fileStorage named nowhere: its default follows the persistence the overrides leave (ADR 0055).
  const fileStorageDefaulted =
    raw.fileStorage === undefined &&
    !Object.keys(env).some((key) => /^TWINPORT_FILESTORAGE_/i.test(key)) &&
    !(options.overrides ?? []).some((override) => /^fileStorage\b/i.test(override));
  fillRoleDefaults(raw, options.role);
  // Before the overrides, so their indexes name the endpoints that will run:
  // `--endpoint opcua endpoints[0].tcpPort=4841` sets the OPC UA endpoint.
  if (options.endpointKinds && options.endpointKinds.length > 0) keepEndpointKinds(raw, options.endpointKinds);
  const origins: ValueOrigins = new Map();
  // Every @class first (environment, then command line, which wins), then the other values, so each
  // value resolves against the class that will run, whichever source names the class (overrides.ts).
  const overrides = options.overrides ?? [];
  const warnings = applyEnvOverrides(raw, env, origins, "classes");
  warnings.push(...applyCliOverrides(raw, overrides, origins, "classes"));
  warnings.push(...applyEnvOverrides(raw, env, origins, "values"));
  warnings.push(...applyCliOverrides(raw, [...classedObjectMembers(overrides), ...overrides], origins, "values"));
  if (fileStorageDefaulted) raw.fileStorage = defaultFileStorage(raw, options.role !== "embedded");
  const validated = validateConfigWithWarnings(raw, origins);
  // Only where OPC UA is served: the other roles read the same file without its users.
  const logins =
    options.role === "embedded" || options.role === "opcua-gateway"
      ? opcuaUserLoginFindings(validated.config.endpoints)
      : { issues: [], warnings: [] };
  if (logins.issues.length > 0) throw new ConfigError(logins.issues);
  return { config: validated.config, warnings: [...validated.warnings, ...logins.warnings, ...warnings] };
}
