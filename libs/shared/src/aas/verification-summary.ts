/**
 * The message of a refused write or load: every constraint finding stays in the Result's messages
 * (details), but the headline groups them by kind, names the submodel template the object claims
 * to follow, and says which switch admits such objects. A real-world AID from a generator can
 * carry 70 findings of four kinds: a user needs the four kinds and the switch, not the first line.
 */

/** IDTA templates by semanticId prefix, longest first (issue 18.5: AID and AIMC by name). */
const TEMPLATES: readonly (readonly [string, string])[] = [
  ["https://admin-shell.io/idta/AssetInterfacesDescription/", "IDTA 02017 Asset Interfaces Description (AID)"],
  ["https://admin-shell.io/idta/AssetInterfaceDescription/", "IDTA 02017 Asset Interfaces Description (AID)"],
  [
    "https://admin-shell.io/idta/AssetInterfacesMappingConfiguration/",
    "IDTA 02027 Asset Interfaces Mapping Configuration (AIMC)",
  ],
  ["https://admin-shell.io/idta/", "an IDTA submodel template"],
];

function semanticIdOf(jsonable: unknown): string | undefined {
  const keys = (jsonable as { semanticId?: { keys?: { value?: unknown }[] } } | undefined)?.semanticId?.keys;
  const value = Array.isArray(keys) ? keys[0]?.value : undefined;
  return typeof value === "string" ? value : undefined;
}

/** "AID template (semanticId …)" when the object's semanticId names a known template. */
export function templateOf(jsonable: unknown): string | undefined {
  const id = semanticIdOf(jsonable);
  if (id === undefined) return undefined;
  const known = TEMPLATES.find(([prefix]) => id.startsWith(prefix));
  return known ? `${known[1]}, semanticId ${id}` : undefined;
}

/** "path: message" → message: findings of one kind differ only in where they are. */
function kindOf(detail: string): { path: string; kind: string } {
  const at = detail.indexOf(": ");
  // aas-core paths have no spaces; a detail without a path is its own kind.
  return at > 0 && !detail.slice(0, at).includes(" ")
    ? { path: detail.slice(0, at), kind: detail.slice(at + 2) }
    : { path: "", kind: detail };
}

export function verificationSummary(target: string, details: readonly string[], jsonable: unknown): string {
  const template = templateOf(jsonable);
  const head = `Invalid ${target}${template ? ` (${template})` : ""}`;
  if (details.length === 1) return `${head}: ${details[0]}`;
  const kinds = new Map<string, { count: number; first: string }>();
  for (const detail of details) {
    const { path, kind } = kindOf(detail);
    const entry = kinds.get(kind);
    if (entry) entry.count++;
    else kinds.set(kind, { count: 1, first: path });
  }
  const groups = [...kinds]
    .sort((a, b) => b[1].count - a[1].count)
    .map(([kind, { count, first }]) => `${count}× ${kind}${first ? ` (first at ${first})` : ""}`);
  const switchHint =
    target === "Submodel" || target === "Environment"
      ? " Submodels with such findings are stored when validation is off: core.validationOnCreate / validationOnUpdate false for the API, validationOnLoad false or --no-validation for model files."
      : "";
  return `${head}: ${details.length} findings of ${kinds.size} kind${kinds.size === 1 ? "" : "s"}: ${groups.join("; ")}.${switchHint}`;
}
