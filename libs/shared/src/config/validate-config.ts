import type { z } from "zod";
import { isPlainObject } from "../aas/plain-object.ts";
import { type AssetConnectionConfig, assetConnectionSection } from "./asset-connections.ts";
import { type ClassedSection, classSuffix } from "./class-names.ts";
import { ConfigError, formatConfigPath } from "./config-error.ts";
import { CONFIG_SECTIONS, SECTION_NAMES } from "./config-sections.ts";
import { type CoreConfig, coreSchema } from "./core.ts";
import { corsOriginWarnings } from "./cors-settings.ts";
import { displayUrl } from "./display-url.ts";
import { type EndpointConfig, endpointSection, isHttpEndpoint } from "./endpoints.ts";
import { type EventsConfig, eventsSchema } from "./events.ts";
import {
  ignoredFaaastOption,
  ignoredOptionWarning,
  refusedFaaastOption,
  refusedOptionMessage,
  unknownKeyMessage,
  withoutIgnoredProfiles,
} from "./faaast-options.ts";
import { FILE_STORAGE_FILESYSTEM_CLASS, type FileStorageConfig, fileStorageSection } from "./file-storage.ts";
import { kernelFolderIssues } from "./kernel-folders.ts";
import { type MessageBusConfig, messageBusSection } from "./message-bus.ts";
import { type PersistenceConfig, persistenceSection } from "./persistence.ts";
import { allowedKeysAt, describeObjectOptions, objectKeys, objectOptions, schemaAt } from "./schema-walk.ts";
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
  // A URL's credentials stay out of the message (it reaches stderr and the log).
  if (typeof value === "string") return `string ${JSON.stringify(/[@?&]/.test(value) ? displayUrl(value) : value)}`;
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
  const plain = (): string[] => {
    const value = valueAt(input, issue.path);
    return [
      `Invalid value at '${at}': ${issue.message}${value === undefined || typeof value === "object" ? "" : ` (got ${describe(value)})`}`,
    ];
  };
  switch (issue.code) {
    case "unrecognized_keys": {
      const value = valueAt(input, issue.path);
      const keys = typeof value === "object" && value !== null ? Object.keys(value) : [];
      const allowed =
        allowedKeysAt(
          schema,
          issue.path,
          keys.filter((key) => !issue.keys.includes(key)),
        ) ?? [];
      const here = schemaAt(schema, issue.path);
      return issue.keys.map((key) => {
        const path = formatConfigPath([...prefix, ...issue.path, key]);
        const refused = refusedFaaastOption(here, key);
        return refused === undefined ? unknownKeyMessage(path, key, allowed) : refusedOptionMessage(path, refused);
      });
    }
    case "invalid_type": {
      const value = valueAt(input, issue.path);
      if (value === undefined)
        // A schema's own message says what to write there; zod's default only names the type.
        return [
          issue.message.startsWith("Invalid input")
            ? `Missing '${at}' (${issue.expected})`
            : `Missing '${at}': ${issue.message}`,
        ];
      const expected = issue.expected === "boolean" ? "boolean (true or false)" : issue.expected;
      return [`Invalid value at '${at}': expected ${expected}, got ${describe(value)}`];
    }
    case "invalid_union": {
      // A rule's subject or object that is none of its kinds: zod only says "Invalid input".
      const here = schemaAt(schema, issue.path);
      const options = here ? objectOptions(here) : undefined;
      const value = valueAt(input, issue.path);
      // A missing required setting that takes one of several forms: said as a missing one of one form is.
      if (value === undefined)
        return [
          issue.message.startsWith("Invalid input")
            ? `Missing '${at}'`
            : `Missing '${at}' (${issue.message.replace(/^expected /, "")})`,
        ];
      if (options && typeof value === "object" && value !== null && !Array.isArray(value)) {
        const keys = Object.keys(value);
        const optionKeys = options.map((option) => objectKeys(option) ?? []);
        // The one form whose keys these are: its own complaint names the value that is wrong
        // ({"proprietary": "foo"} is a proprietary object with a value no call has).
        const fitting = optionKeys.flatMap((allowed, index) =>
          keys.length > 0 && keys.every((key) => allowed.includes(key)) ? [index] : [],
        );
        const inner = fitting.length === 1 ? issue.errors[fitting[0]!] : undefined;
        if (inner !== undefined && inner.length > 0)
          return inner.flatMap((problem) =>
            issueMessages(
              { ...problem, path: [...issue.path, ...problem.path] } as z.core.$ZodIssue,
              schema,
              input,
              prefix,
            ),
          );
        // Keys no form has: named, as an unknown key anywhere else is.
        const known = [...new Set(optionKeys.flat())];
        const unknown = keys.filter((key) => !known.includes(key));
        if (unknown.length > 0)
          return unknown.map((key) => unknownKeyMessage(formatConfigPath([...prefix, ...issue.path, key]), key, known));
        return [`Invalid value at '${at}': expected one of ${describeObjectOptions(options)}`];
      }
      return plain();
    }
    case "invalid_value":
      return [
        `Invalid value ${JSON.stringify(valueAt(input, issue.path))} at '${at}'. Allowed: ${issue.values.map(String).join(", ")}`,
      ];
    default:
      return plain();
  }
}

/** Problems and warnings of one validation, collected so a user fixes a file in one round. */
interface Findings {
  issues: string[];
  warnings: string[];
  /** Where overridden values came from (overrides.ts), by settings path. */
  origins: ReadonlyMap<string, string>;
}

/** " (from TWINPORT_CORE_LOGLEVEL)" when the value at `path`, or a section around it, was set by an override. */
function originNote(found: Findings, path: Path): string {
  for (let length = path.length; length > 0; length--) {
    const origin = found.origins.get(formatConfigPath(path.slice(0, length)));
    if (origin !== undefined) return ` (${origin})`;
  }
  return "";
}

/** FA³ST options among the unknown keys of a failed parse: where they are and why they are ignored. */
function ignorableKeys(
  zodIssues: readonly z.core.$ZodIssue[],
  schema: z.ZodType,
): { path: PropertyKey[]; key: string; reason: string }[] {
  const found: { path: PropertyKey[]; key: string; reason: string }[] = [];
  for (const issue of zodIssues) {
    if (issue.code !== "unrecognized_keys") continue;
    const at = schemaAt(schema, issue.path);
    for (const key of issue.keys) {
      const reason = ignoredFaaastOption(at, key);
      if (reason !== undefined) found.push({ path: [...issue.path], key, reason });
    }
  }
  return found;
}

/**
 * Parses one section. FA³ST options Twinport lacks are removed with a warning and the section is
 * parsed again without them (docs/faaast-compatibility.md); every other problem is an issue.
 */
function parseWith<T>(schema: z.ZodType, input: unknown, prefix: Path, found: Findings): T | undefined {
  let result = schema.safeParse(input);
  let parsedInput = input;
  if (!result.success) {
    const ignorable = ignorableKeys(result.error.issues, schema);
    if (ignorable.length > 0) {
      parsedInput = structuredClone(input);
      for (const { path, key, reason } of ignorable) {
        delete (valueAt(parsedInput, path) as Record<string, unknown>)[key];
        found.warnings.push(ignoredOptionWarning(formatConfigPath([...prefix, ...path, key]), reason));
      }
      result = schema.safeParse(parsedInput);
    }
  }
  if (result.success) return result.data as T;
  for (const issue of result.error.issues) {
    const note = originNote(found, [...prefix, ...issue.path]);
    found.issues.push(...issueMessages(issue, schema, parsedInput, prefix).map((message) => `${message}${note}`));
  }
  return undefined;
}

function parseClassed<T>(section: ClassedSection, input: unknown, prefix: Path, found: Findings): T | undefined {
  const { issues } = found;
  const at = formatConfigPath(prefix);
  if (!isPlainObject(input)) {
    issues.push(
      `'${at}' must be an object with "@class" (got ${describe(input)}). Known: ${section.known.join(", ")}${originNote(found, prefix)}`,
    );
    return undefined;
  }
  const className = input["@class"];
  if (typeof className !== "string") {
    issues.push(`Missing "@class" at ${at}. Known: ${section.known.join(", ")}${originNote(found, prefix)}`);
    return undefined;
  }
  const suffix = classSuffix(className);
  const schema = section.schemaFor(suffix);
  if (!schema) {
    const instead = section.unsupported?.[suffix];
    issues.push(
      `Unknown @class '${className}' at ${at}.${instead === undefined ? "" : ` ${instead}.`} Known: ${section.known.join(", ")}${originNote(found, [...prefix, "@class"])}`,
    );
    return undefined;
  }
  // The canonical short name from here on, so code compares one spelling.
  return parseWith<T>(schema, { ...input, "@class": suffix }, prefix, found);
}

function parseClassedList<T>(section: ClassedSection, input: unknown, prefix: string, found: Findings): T[] {
  if (!Array.isArray(input)) {
    found.issues.push(`'${prefix}' must be a list (got ${describe(input)})${originNote(found, [prefix])}`);
    return [];
  }
  const parsed: T[] = [];
  input.forEach((entry, index) => {
    const value = parseClassed<T>(section, entry, [prefix, index], found);
    if (value !== undefined) parsed.push(value);
  });
  return parsed;
}

/**
 * Validates a complete raw configuration (defaults for missing sections already filled in by the
 * loader) and applies every property default. Collects all problems before throwing.
 */
export function validateConfig(raw: unknown): TwinportConfig {
  return validateConfigWithWarnings(raw).config;
}

/** validateConfig, with the warnings about FA³ST options the configuration sets that Twinport ignores. */
export function validateConfigWithWarnings(
  raw: unknown,
  origins: ReadonlyMap<string, string> = new Map(),
): { config: TwinportConfig; warnings: string[] } {
  if (!isPlainObject(raw)) throw new ConfigError(`The configuration must be a JSON object (got ${describe(raw)})`);
  const found: Findings = { issues: [], warnings: [], origins };
  const { issues } = found;
  for (const key of Object.keys(raw)) {
    // Own keys only: `in` would take "__proto__" and "constructor" for known sections.
    if (!Object.hasOwn(CONFIG_SECTIONS, key)) issues.push(unknownKeyMessage(key, key, SECTION_NAMES));
  }
  const core = parseWith<CoreConfig>(coreSchema, raw.core ?? {}, ["core"], found);
  const endpoints = parseClassedList<EndpointConfig>(
    endpointSection,
    withoutIgnoredProfiles(raw.endpoints ?? [], found.warnings),
    "endpoints",
    found,
  );
  const persistence = parseClassed<PersistenceConfig>(persistenceSection, raw.persistence, ["persistence"], found);
  const messageBus = parseClassed<MessageBusConfig>(messageBusSection, raw.messageBus, ["messageBus"], found);
  const fileStorage = parseClassed<FileStorageConfig>(fileStorageSection, raw.fileStorage, ["fileStorage"], found);
  const assetConnections = parseClassedList<AssetConnectionConfig>(
    assetConnectionSection,
    raw.assetConnections ?? [],
    "assetConnections",
    found,
  );
  const submodelTemplateProcessors = parseClassedList<SubmodelTemplateProcessorConfig>(
    submodelTemplateProcessorSection,
    raw.submodelTemplateProcessors ?? [],
    "submodelTemplateProcessors",
    found,
  );
  const security =
    raw.security === undefined
      ? undefined
      : parseWith<SecurityConfig>(securitySchema, raw.security, ["security"], found);
  const events = parseWith<EventsConfig>(eventsSchema, raw.events ?? {}, ["events"], found);
  if (issues.length > 0 || !core || !persistence || !messageBus || !fileStorage) throw new ConfigError(issues);
  endpoints.forEach((endpoint, index) => {
    if (isHttpEndpoint(endpoint))
      found.warnings.push(...corsOriginWarnings(endpoint.corsAllowedOrigin, `endpoints[${index}].corsAllowedOrigin`));
  });
  // docs/asset-interfaces.md: one processor runs; a second entry was dropped without a word.
  if (submodelTemplateProcessors.length > 1)
    found.warnings.push(
      `Ignoring submodelTemplateProcessors[1..${submodelTemplateProcessors.length - 1}]: only the first processor entry is used (docs/asset-interfaces.md)`,
    );
  if (fileStorage["@class"] === FILE_STORAGE_FILESYSTEM_CLASS && fileStorage.path === undefined) {
    fileStorage.path = `${core.stateDir}/files`;
  }
  const config: TwinportConfig = {
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
  const kernelFolders = kernelFolderIssues(config, (setting) => originNote(found, setting));
  if (kernelFolders.length > 0) throw new ConfigError(kernelFolders);
  return { config, warnings: found.warnings };
}
