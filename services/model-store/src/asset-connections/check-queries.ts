import { ConfigError, isPlainObject } from "@twinport/shared";
import { compileJsonPath, JsonPathError } from "./json-path.ts";

/**
 * Every JSONPath of the configured connections (`query`, and an operation's `queries`), compiled
 * once before anything starts: a broken one is a configuration mistake, reported as the others are
 * (exit code 2, naming the setting), not a start-up failure found while the drivers are built.
 */
export function checkConnectionQueries(connections: readonly unknown[]): void {
  connections.forEach((connection, index) => walk(connection, `assetConnections[${index}]`));
}

function walk(value: unknown, path: string): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, `${path}[${index}]`));
    return;
  }
  if (!isPlainObject(value)) return;
  for (const [key, item] of Object.entries(value)) {
    const at = `${path}${segment(key)}`;
    if (key === "query" && typeof item === "string") check(item, at);
    else if (key === "queries" && isPlainObject(item)) {
      for (const [name, query] of Object.entries(item))
        if (typeof query === "string") check(query, `${at}${segment(name)}`);
    } else walk(item, at);
  }
}

function check(query: string, at: string): void {
  if (query.trim() === "") return;
  try {
    compileJsonPath(query);
  } catch (error) {
    if (error instanceof JsonPathError) throw new ConfigError(`Invalid value at '${at}': ${error.message}`);
    throw error;
  }
}

/** `.name`, or `["…"]` for a key that is no plain name (element references are keys here). */
function segment(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
