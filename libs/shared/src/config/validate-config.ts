import type { z } from "zod";
import { isPlainObject } from "../aas/plain-object.ts";
import { type AssetConnectionConfig, assetConnectionSection } from "./asset-connections.ts";
import { type ClassedSection, classSuffix } from "./class-names.ts";
import { ConfigError, formatConfigPath } from "./config-error.ts";
import { CONFIG_SECTIONS, SECTION_NAMES } from "./config-sections.ts";
import { type CoreConfig, coreSchema } from "./core.ts";
import { type EndpointConfig, endpointSection } from "./endpoints.ts";
import { type EventsConfig, eventsSchema } from "./events.ts";
import { FILE_STORAGE_FILESYSTEM_CLASS, type FileStorageConfig, fileStorageSection } from "./file-storage.ts";
import { type MessageBusConfig, messageBusSection } from "./message-bus.ts";
import { type PersistenceConfig, persistenceSection } from "./persistence.ts";
import { allowedKeysAt } from "./schema-walk.ts";
import { type SecurityConfig, securitySchema } from "./security.ts";
import {
  type SubmodelTemplateProcessorConfig,
  submodelTemplateProcessorSection,
} from "./submodel-template-processors.ts";

export interface TwinportConfig {
  core: CoreConfig;
  endpoints: EndpointConfig[];
  persistence: PersistenceConfig;
  messageBus: MessageBusConfig;
  fileStorage: FileStorageConfig;
  assetConnections: AssetConnectionConfig[];
  submodelTemplateProcessors: SubmodelTemplateProcessorConfig[];
  /** Absent: HTTP is open (the spec's default). Present: authentication and rules apply (issue 13). */
  security?: SecurityConfig;
  /** Event log retention and the HTTP event stream (config/events.ts); filled with defaults when loaded. */
  events?: EventsConfig;
}

type Path = readonly PropertyKey[];

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `string ${JSON.stringify(value)}`;
  return `${typeof value} ${String(value)}`;
}

function valueAt(input: unknown, path: Path): unknown {
  let current = input;
  for (const segment of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

/** One zod issue as a sentence naming the full settings path and what is allowed there. */
function issueMessages(issue: z.core.$ZodIssue, schema: z.ZodType, input: unknown, prefix: Path): string[] {
  const at = formatConfigPath([...prefix, ...issue.path]);
  switch (issue.code) {
    case "unrecognized_keys": {
      const allowed = allowedKeysAt(schema, issue.path) ?? [];
      return issue.keys.map(
        (key) => `Unknown key '${formatConfigPath([...prefix, ...issue.path, key])}'. Allowed: ${allowed.join(", ")}`,
      );
    }
    case "invalid_type": {
      const value = valueAt(input, issue.path);
      if (value === undefined) return [`Missing '${at}' (${issue.expected})`];
      const expected = issue.expected === "boolean" ? "boolean (true or false)" : issue.expected;
      return [`Invalid value at '${at}': expected ${expected}, got ${describe(value)}`];
    }
    case "invalid_value":
      return [
        `Invalid value ${JSON.stringify(valueAt(input, issue.path))} at '${at}'. Allowed: ${issue.values.map(String).join(", ")}`,
      ];
    default: {
      const value = valueAt(input, issue.path);
      return [
        `Invalid value at '${at}': ${issue.message}${value === undefined || typeof value === "object" ? "" : ` (got ${describe(value)})`}`,
      ];
    }
  }
}

function parseWith<T>(schema: z.ZodType, input: unknown, prefix: Path, issues: string[]): T | undefined {
  const result = schema.safeParse(input);
  if (result.success) return result.data as T;
  for (const issue of result.error.issues) issues.push(...issueMessages(issue, schema, input, prefix));
  return undefined;
}

function parseClassed<T>(section: ClassedSection, input: unknown, prefix: Path, issues: string[]): T | undefined {
  const at = formatConfigPath(prefix);
  if (!isPlainObject(input)) {
    issues.push(`'${at}' must be an object with "@class" (got ${describe(input)}). Known: ${section.known.join(", ")}`);
    return undefined;
  }
  const className = input["@class"];
  if (typeof className !== "string") {
    issues.push(`Missing "@class" at ${at}. Known: ${section.known.join(", ")}`);
    return undefined;
  }
  const suffix = classSuffix(className);
  const schema = section.schemaFor(suffix);
  if (!schema) {
    issues.push(`Unknown @class '${className}' at ${at}. Known: ${section.known.join(", ")}`);
    return undefined;
  }
  // The canonical short name from here on, so code compares one spelling.
  return parseWith<T>(schema, { ...input, "@class": suffix }, prefix, issues);
}

function parseClassedList<T>(section: ClassedSection, input: unknown, prefix: string, issues: string[]): T[] {
  if (!Array.isArray(input)) {
    issues.push(`'${prefix}' must be a list (got ${describe(input)})`);
    return [];
  }
  const parsed: T[] = [];
  input.forEach((entry, index) => {
    const value = parseClassed<T>(section, entry, [prefix, index], issues);
    if (value !== undefined) parsed.push(value);
  });
  return parsed;
}

/**
 * Validates a complete raw configuration (defaults for missing sections already filled in by the
 * loader) and applies every property default. Collects all problems before throwing.
 */
export function validateConfig(raw: unknown): TwinportConfig {
  if (!isPlainObject(raw)) throw new ConfigError(`The configuration must be a JSON object (got ${describe(raw)})`);
  const issues: string[] = [];
  for (const key of Object.keys(raw)) {
    // Own keys only: `in` would take "__proto__" and "constructor" for known sections.
    if (!Object.hasOwn(CONFIG_SECTIONS, key)) issues.push(`Unknown key '${key}'. Allowed: ${SECTION_NAMES.join(", ")}`);
  }
  const core = parseWith<CoreConfig>(coreSchema, raw.core ?? {}, ["core"], issues);
  const endpoints = parseClassedList<EndpointConfig>(endpointSection, raw.endpoints ?? [], "endpoints", issues);
  const persistence = parseClassed<PersistenceConfig>(persistenceSection, raw.persistence, ["persistence"], issues);
  const messageBus = parseClassed<MessageBusConfig>(messageBusSection, raw.messageBus, ["messageBus"], issues);
  const fileStorage = parseClassed<FileStorageConfig>(fileStorageSection, raw.fileStorage, ["fileStorage"], issues);
  const assetConnections = parseClassedList<AssetConnectionConfig>(
    assetConnectionSection,
    raw.assetConnections ?? [],
    "assetConnections",
    issues,
  );
  const submodelTemplateProcessors = parseClassedList<SubmodelTemplateProcessorConfig>(
    submodelTemplateProcessorSection,
    raw.submodelTemplateProcessors ?? [],
    "submodelTemplateProcessors",
    issues,
  );
  const security =
    raw.security === undefined
      ? undefined
      : parseWith<SecurityConfig>(securitySchema, raw.security, ["security"], issues);
  const events = parseWith<EventsConfig>(eventsSchema, raw.events ?? {}, ["events"], issues);
  if (issues.length > 0 || !core || !persistence || !messageBus || !fileStorage) throw new ConfigError(issues);
  if (fileStorage["@class"] === FILE_STORAGE_FILESYSTEM_CLASS && fileStorage.path === undefined) {
    fileStorage.path = `${core.stateDir}/files`;
  }
  return {
    core,
    endpoints,
    persistence,
    messageBus,
    fileStorage,
    assetConnections,
    submodelTemplateProcessors,
    ...(security ? { security } : {}),
    ...(events ? { events } : {}),
  };
}
