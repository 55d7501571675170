/**
 * A configuration problem the user can fix: an unknown key, a wrong type, an unknown @class, an
 * unreadable file. The CLI prints `message` as one line and exits; `issues` keeps every problem
 * found, so a user fixes a file in one round instead of one error per start.
 */
export class ConfigError extends Error {
  readonly issues: readonly string[];
  constructor(issues: string | readonly string[]) {
    const list = typeof issues === "string" ? [issues] : issues;
    super(list.join("; "));
    this.name = "ConfigError";
    this.issues = list;
  }
}

/** `endpoints[0].port` style, the same syntax the CLI overrides use. */
export function formatConfigPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text === "" ? String(segment) : `.${String(segment)}`;
  }
  return text;
}
