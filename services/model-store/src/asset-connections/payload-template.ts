/**
 * FA³ST's payload templates: `${name}` placeholders replaced by text. FA³ST does this with a Java
 * regex replacement, which reads "$" and "\" in the inserted text as special characters and so
 * mangles JSON-escaped strings; here the replacement is literal. A placeholder that names nothing
 * known stays as written (FA³ST does the same).
 */
export function fillTemplate(template: string, values: ReadonlyMap<string, string>): string {
  return template.replace(/\$\{([^}]*)\}/g, (placeholder, name: string) => values.get(name) ?? placeholder);
}

/** The names a template refers to, for start-up warnings about placeholders nothing fills. */
export function templateNames(template: string): string[] {
  return [...template.matchAll(/\$\{([^}]*)\}/g)].map((match) => match[1]!);
}
