import type { z } from "zod";
import { isPlainObject } from "../aas/plain-object.ts";
import { type ClassedSection, classSuffix } from "./class-names.ts";
import { ConfigError, formatConfigPath } from "./config-error.ts";
import { CONFIG_SECTIONS, SECTION_NAMES, schemaOfEntry } from "./config-sections.ts";
import {
  ignoredFaaastOptions,
  ignoredOptionWarning,
  refusedFaaastOptions,
  refusedOptionMessage,
  unknownKeyMessage,
} from "./faaast-options.ts";
import { booleanOfText } from "./file-scalars.ts";
import { childOf, exactMatch, looseMatch, schemaType, takesOnlyText, takesTextList } from "./schema-walk.ts";

/**
 * Overrides on top of the file: `path=value` on the command line and `TWINPORT_<PATH>` in the
 * environment. Both are resolved against the schema before anything is set, so a typo is reported
 * as an unknown key (CLI: error; environment: warning, since Kubernetes injects TWINPORT_* service
 * variables of its own) instead of silently creating a property nobody reads.
 */

type Segment = string | number;
type Match = (keys: string[], segment: string) => string | undefined;

/** Where a path comes from: how its keys are matched, and how messages spell what the user wrote. */
interface Source {
  match: Match;
  /** A segment that names no key, as the user would write it in the file (env names are upper case). */
  spell(segment: string): string;
  /** How to choose `className` for the @class entry at `path` from this source. */
  setClass(path: readonly Segment[], className: string): string;
}

const COMMAND_LINE: Source = {
  match: exactMatch,
  spell: (segment) => segment,
  setClass: (path, className) => `${formatConfigPath(path)}.@class=${className}`,
};

/** Variables match keys case-insensitively: TWINPORT_PERSISTENCE_URL names what a file writes as persistence.url. */
const ENVIRONMENT: Source = {
  match: looseMatch,
  spell: (segment) => segment.toLowerCase(),
  setClass: (path, className) =>
    `${ENV_PREFIX}${path.map((segment) => String(segment).toUpperCase()).join("_")}_CLASS=${className}`,
};

interface Resolved {
  path: Segment[];
  /** Schema of the setting, when known (not inside pass-through objects or unknown @class entries). */
  leaf: z.ZodType | undefined;
}

/**
 * Where override values came from, by settings path (`core.logLevel` → "from TWINPORT_CORE_LOGLEVEL"),
 * so a value refused later by validation is reported with its source: an operator looking for
 * `verbose` in the file would not find it there.
 */
export type ValueOrigins = Map<string, string>;

/** Records that `path` (and everything below it) now comes from `origin`. */
function recordOrigin(origins: ValueOrigins | undefined, path: Segment[], origin: string): void {
  if (!origins) return;
  const at = formatConfigPath(path);
  for (const key of [...origins.keys()])
    if (key === at || key.startsWith(`${at}.`) || key.startsWith(`${at}[`)) origins.delete(key);
  origins.set(at, origin);
}

/** The path names a FA³ST option Twinport ignores: nothing is set, the user is warned. */
interface IgnoredOption {
  ignored: string;
}

/** A FA³ST option that stops the start from any source (faaast-options.ts REFUSED_BY_SCHEMA). */
interface RefusedOption {
  refused: string;
}

const RESERVED_ENV = new Set(["TWINPORT_CONFIG", "TWINPORT_MODEL"]);
/**
 * Names that walk from a JavaScript object to its prototype: `a.__proto__.x=1` would set `x` on
 * every object of the process. No setting has such a name, so a path that contains one is refused
 * before anything is resolved or set.
 */
const PROTOTYPE_SEGMENTS = ["__proto__", "constructor", "prototype"];

function prototypeSegment(segments: readonly string[]): string | undefined {
  return segments.find((segment) => PROTOTYPE_SEGMENTS.includes(segment.toLowerCase()));
}

function prototypeRefusal(segment: string): string {
  return `'${segment}' cannot be part of a configuration path (it reaches JavaScript's object prototype)`;
}
const ENV_PREFIX = "TWINPORT_";

function asIndex(segment: string): number | undefined {
  return /^\d+$/.test(segment) ? Number(segment) : undefined;
}

/** Follows `segments` through the configuration layout; a string result is the reason it failed. */
function resolve(
  raw: Record<string, unknown>,
  segments: string[],
  source: Source,
): Resolved | IgnoredOption | RefusedOption | string {
  const { match } = source;
  const [first, ...rest] = segments;
  const sectionName = match([...SECTION_NAMES], first!);
  if (sectionName === undefined) return unknownKeyMessage(source.spell(first!), first!, SECTION_NAMES);
  const layout = CONFIG_SECTIONS[sectionName]!;
  const path: Segment[] = [sectionName];
  let value: unknown = raw[sectionName];
  let schema: z.ZodType | undefined;
  let i = 0;
  /** How many segments of `path` name the @class entry (section, and index in a list). */
  let entryDepth = 0;

  if (layout.shape === "plain") {
    schema = layout.schema;
  } else {
    if (layout.shape === "classed-list") {
      if (rest.length === 0) return { path, leaf: undefined };
      const index = asIndex(rest[0]!);
      if (index === undefined) return `'${sectionName}' is a list: expected an index after it, got '${rest[0]}'`;
      path.push(index);
      value = Array.isArray(value) ? value[index] : undefined;
      i = 1;
    }
    if (i >= rest.length) return { path, leaf: undefined };
    entryDepth = path.length;
    schema = schemaOfEntry(layout.section, value);
    if (!schema) {
      // No usable @class yet: only "@class" itself (or opaque content) can be set here.
      const key = match(["@class"], rest[i]!) ?? rest[i]!;
      return { path: [...path, key, ...rest.slice(i + 1)], leaf: undefined };
    }
  }

  for (; i < rest.length; i++) {
    const segment = rest[i]!;
    if (!schema) {
      path.push(...rest.slice(i));
      return { path, leaf: undefined };
    }
    // Keys of records and pass-through objects are data: keep an existing spelling when one matches.
    const existingKeys = isPlainObject(value) ? Object.keys(value) : [];
    const child = childOf(schema, segment, match);
    if (!child.found) {
      const ignored = ignoredFaaastOptions(schema);
      const option = match(Object.keys(ignored), segment);
      if (option !== undefined)
        return { ignored: ignoredOptionWarning(formatConfigPath([...path, option]), ignored[option]!) };
      const refusedKeys = refusedFaaastOptions(schema);
      const refusedKey = match(Object.keys(refusedKeys), segment);
      if (refusedKey !== undefined)
        return { refused: refusedOptionMessage(formatConfigPath([...path, refusedKey]), refusedKeys[refusedKey]!) };
      const elsewhere =
        layout.shape !== "plain" && path.length === entryDepth
          ? otherClassWith(layout.section, value, segment, source)
          : undefined;
      const at = formatConfigPath([...path, elsewhere?.key ?? source.spell(segment)]);
      if (elsewhere)
        return `Unknown key '${at}' for ${classSuffix(String((value as Record<string, unknown>)["@class"]))}: it is a setting of ${elsewhere.className} (set ${source.setClass(path, elsewhere.className)} to use that). Allowed: ${child.allowed?.join(", ")}`;
      return child.allowed
        ? unknownKeyMessage(at, segment, child.allowed)
        : `Unknown key '${at}': '${formatConfigPath(path)}' is ${child.reason}`;
    }
    const key =
      typeof child.key === "string" && !existingKeys.includes(child.key)
        ? (match(existingKeys, child.key) ?? child.key)
        : child.key;
    path.push(key);
    value = isPlainObject(value) || Array.isArray(value) ? (value as Record<Segment, unknown>)[key] : undefined;
    schema = child.schema;
  }
  return { path, leaf: schema };
}

/** Another class of the section that has the setting `segment` names (Redis's url on the memory persistence). */
function otherClassWith(
  section: ClassedSection,
  entry: unknown,
  segment: string,
  source: Source,
): { className: string; key: string } | undefined {
  const current = isPlainObject(entry) && typeof entry["@class"] === "string" ? classSuffix(entry["@class"]) : "";
  for (const className of section.known) {
    if (className === current) continue;
    const schema = section.schemaFor(className);
    const child = schema ? childOf(schema, segment, source.match) : undefined;
    if (child?.found && typeof child.key === "string" && child.schema !== undefined)
      return { className, key: child.key };
  }
  return undefined;
}

/**
 * JSON when the text is JSON, else the text. Settings that only take text keep it as written
 * (`0042` stays "0042"), except a JSON string, which is read as one: `host="127.0.0.1"` is what
 * the help's "JSON when it parses as JSON" promises, and no host or path starts and ends with a quote.
 */
function overrideValue(text: string, leaf: z.ZodType | undefined): unknown {
  if (leaf && takesOnlyText(leaf)) return jsonString(text) ?? text;
  try {
    return JSON.parse(text);
  } catch {
    // "True"/"FALSE" where a boolean goes, as Jackson reads them (faaast_config_extension_* too).
    const bool = leaf && schemaType(leaf) === "boolean" ? booleanOfText(text) : undefined;
    if (bool !== undefined) return bool;
    if (leaf && takesTextList(leaf))
      return text
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part !== "");
    return text;
  }
}

function jsonString(text: string): string | undefined {
  if (text.length < 2 || !text.startsWith('"') || !text.endsWith('"')) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "string" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function setAt(raw: Record<string, unknown>, path: Segment[], value: unknown): void {
  let container: Record<Segment, unknown> = raw;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    if (typeof key === "string" && prototypeSegment([key]))
      throw new ConfigError(`Cannot set '${formatConfigPath(path)}': ${prototypeRefusal(key)}`);
    if (Array.isArray(container) && typeof key === "number" && key > container.length) {
      throw new ConfigError(
        `Cannot set '${formatConfigPath(path)}': '${formatConfigPath(path.slice(0, i))}' has ${container.length} entries (an override may add the next one, index ${container.length})`,
      );
    }
    if (i === path.length - 1) {
      container[key] = value;
      return;
    }
    const next = Object.hasOwn(container, key) ? container[key] : undefined;
    if (typeof next !== "object" || next === null) container[key] = typeof path[i + 1] === "number" ? [] : {};
    container = container[key] as Record<Segment, unknown>;
  }
}

/** `endpoints[0].port` or `endpoints.0.port` (FA³ST's JSONPath without `$.`; a leading `$.` is accepted). */
function parseOverridePath(text: string): string[] | undefined {
  const body = text.startsWith("$.") ? text.slice(2) : text;
  if (!/^[^.[\]]+(?:\.[^.[\]]+|\[\d+\])*$/.test(body)) return undefined;
  return [...body.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => m[1] ?? m[2]!);
}

/**
 * Applies `path=value` overrides in order. Any problem is a ConfigError; a FA³ST option Twinport
 * ignores is not set and returned as a warning (the rule of the file, docs/faaast-compatibility.md).
 */
export function applyCliOverrides(
  raw: Record<string, unknown>,
  overrides: readonly string[],
  origins?: ValueOrigins,
  part: OverridePart = "all",
): string[] {
  const warnings: string[] = [];
  for (const override of overrides) {
    if (part !== "all" && (part === "classes") !== isCliClassOverride(override)) continue;
    const eq = override.indexOf("=");
    const segments = eq > 0 ? parseOverridePath(override.slice(0, eq)) : undefined;
    if (!segments)
      throw new ConfigError(`Invalid override '${override}': expected path=value, e.g. endpoints[0].port=8081`);
    const forbidden = prototypeSegment(segments);
    if (forbidden !== undefined)
      throw new ConfigError(`Invalid override '${override}': ${prototypeRefusal(forbidden)}`);
    const resolved = resolve(raw, segments, COMMAND_LINE);
    if (typeof resolved === "string") throw new ConfigError(resolved);
    if ("refused" in resolved) throw new ConfigError(resolved.refused);
    if ("ignored" in resolved) {
      warnings.push(resolved.ignored);
      continue;
    }
    setAt(raw, resolved.path, overrideValue(override.slice(eq + 1), resolved.leaf));
    recordOrigin(origins, resolved.path, "from the command line");
  }
  return warnings;
}

/**
 * Which overrides a call applies. loadConfig sets every @class (environment, then command line)
 * before any other value, so a value resolves against the class that will run whichever source
 * names it: `persistence.@class=…PersistenceRedis` on the command line with TWINPORT_PERSISTENCE_URL
 * in the environment dropped the URL with a warning (it was resolved against the file's memory class).
 */
export type OverridePart = "all" | "classes" | "values";
const ENV_CLASS = /_@?CLASS$/i;
const CLI_CLASS = /^[^=]*\.@class=/;

/** The members of a JSON object value that names its `@class`, else undefined. */
function classedObjectOf(text: string): Record<string, unknown> | undefined {
  const value = text.trimStart();
  if (!value.startsWith("{") || !value.includes("@class")) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return isPlainObject(parsed) && "@class" in parsed ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `path.@class=X`, or a whole entry given with its class (`persistence={"@class":"…Redis"}`): both
 * settle the class, so both come before the other values (loadConfig).
 */
export function isCliClassOverride(override: string): boolean {
  if (CLI_CLASS.test(override)) return true;
  const eq = override.indexOf("=");
  return eq > 0 && classedObjectOf(override.slice(eq + 1)) !== undefined;
}

/**
 * A whole entry given on the command line with its class, as single overrides of its other members
 * (`persistence.url="…"`): applied again after the environment's values, so the command line still
 * wins on a member both name, while the environment's other members of that class stay.
 */
export function classedObjectMembers(overrides: readonly string[]): string[] {
  const members: string[] = [];
  for (const override of overrides) {
    const eq = override.indexOf("=");
    if (eq <= 0 || CLI_CLASS.test(override)) continue;
    const object = classedObjectOf(override.slice(eq + 1));
    if (object === undefined) continue;
    for (const [key, value] of Object.entries(object))
      if (key !== "@class") members.push(`${override.slice(0, eq)}.${key}=${JSON.stringify(value)}`);
  }
  return members;
}

/** FA³ST's prefix for configuration variables (its docs: `faaast_config_extension_core_requestHandlerThreadPoolSize=42`). */
const FAAAST_ENV_PREFIX = "faaast_config_extension_";

/**
 * Applies TWINPORT_<PATH> variables (segments separated by `_`, matched case-insensitively, digits
 * are list indexes), and FA³ST's `faaast_config_extension_<path>` (the same, with `[i]` for an
 * index) before them. Returns warnings for variables that name no setting.
 */
export function applyEnvOverrides(
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  origins?: ValueOrigins,
  part: OverridePart = "all",
): string[] {
  const warnings: string[] = [];
  const inPart = (name: string) => part === "all" || (part === "classes") === ENV_CLASS.test(name);
  const ours = Object.entries(env)
    .filter(
      (entry): entry is [string, string] =>
        entry[0].startsWith(ENV_PREFIX) && !RESERVED_ENV.has(entry[0]) && entry[1] !== undefined && inPart(entry[0]),
    )
    // @class first, so the other variables of the same entry resolve against the class it names.
    .sort(([a], [b]) => Number(!ENV_CLASS.test(a)) - Number(!ENV_CLASS.test(b)) || a.localeCompare(b));
  // FA³ST's spelling (faaast_config_extension_endpoints[0]_port): taken first, so ours win.
  const faaast = Object.entries(env)
    .filter(
      (entry): entry is [string, string] =>
        entry[0].toLowerCase().startsWith(FAAAST_ENV_PREFIX) && entry[1] !== undefined && inPart(entry[0]),
    )
    .sort(([a], [b]) => a.localeCompare(b));
  const variables = [
    ...faaast.map(([name, text]) => ({
      name,
      text,
      segments: name
        .slice(FAAAST_ENV_PREFIX.length)
        .replace(/\[(\d+)\]/g, "_$1")
        .split("_"),
    })),
    ...ours.map(([name, text]) => ({ name, text, segments: name.slice(ENV_PREFIX.length).split("_") })),
  ];
  for (const { name, text, segments } of variables) {
    // Refused like the other variables that name no setting: a warning, since Kubernetes derives
    // TWINPORT_* variables from service names (a service "twinport-prototype" is plausible).
    const forbidden = prototypeSegment(segments);
    if (forbidden !== undefined) {
      warnings.push(`Ignoring environment variable ${name}: ${prototypeRefusal(forbidden)}`);
      continue;
    }
    if (segments.some((segment) => segment === "")) {
      warnings.push(`Ignoring environment variable ${name}: empty path segment`);
      continue;
    }
    const resolved = resolve(raw, segments, ENVIRONMENT);
    // Not a warning as other unknown variables are: starting without the option would serve with
    // less protection than the deployment asks for (a FA³ST image setting its aclFolder served open).
    if (typeof resolved !== "string" && "refused" in resolved)
      throw new ConfigError(`Environment variable ${name}: ${resolved.refused}`);
    if (typeof resolved === "string") {
      warnings.push(`Ignoring environment variable ${name}: ${resolved}`);
      continue;
    }
    if ("ignored" in resolved) {
      warnings.push(`Environment variable ${name}: ${resolved.ignored}`);
      continue;
    }
    try {
      setAt(raw, resolved.path, overrideValue(text, resolved.leaf));
      recordOrigin(origins, resolved.path, `from ${name}`);
    } catch (error) {
      warnings.push(`Ignoring environment variable ${name}: ${(error as Error).message}`);
    }
  }
  return warnings;
}
