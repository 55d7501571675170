/**
 * Identifier patterns of the access rules: `*` matches any run of characters (also none), every
 * other character is literal. Compiled once when the rules are loaded; a pattern without `*` is a
 * plain string comparison, the common case (one rule per submodel or shell id).
 */
export type IdMatcher = (id: string) => boolean;

export function compileIdPattern(pattern: string): IdMatcher {
  if (pattern === "*") return () => true;
  if (!pattern.includes("*")) return (id) => id === pattern;
  const parts = pattern.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"));
  // [\s\S]: ids may contain line breaks; `s` flag semantics without relying on it.
  const expression = new RegExp(`^${parts.join("[\\s\\S]*")}$`);
  return (id) => expression.test(id);
}
