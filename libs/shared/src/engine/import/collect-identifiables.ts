import { isDeepStrictEqual } from "node:util";
import { type AasClassName, readAas } from "../../aas/index.ts";
import { CommandError, type ImportProblem } from "../../contracts/index.ts";
import { toCommandError } from "../aas-input.ts";
import type { IdentifiableKind } from "../ports/index.ts";
import type { DecodedDocument } from "./decode-document.ts";

/** An identifiable ready to be written: read through the metamodel, canonical JSON. */
export interface ImportCandidate {
  kind: IdentifiableKind;
  id: string;
  json: Record<string, unknown>;
  source: string;
  /** Where in its document, e.g. `submodels[3]`. */
  where: string;
}

export const ENVIRONMENT_SECTIONS: readonly {
  key: string;
  kind: IdentifiableKind;
  modelType: ImportProblem["modelType"] & AasClassName;
}[] = [
  { key: "assetAdministrationShells", kind: "shell", modelType: "AssetAdministrationShell" },
  { key: "submodels", kind: "submodel", modelType: "Submodel" },
  { key: "conceptDescriptions", kind: "concept-description", modelType: "ConceptDescription" },
];

/**
 * The identifiables of several documents, merged (spec §7.3): the same id with deep-equal content
 * collapses silently, the same id with other content is a conflict naming both places. Each one
 * is read on its own (unknown properties refused, verified when `validate`), so a partial import
 * can leave out exactly the identifiables that fail. `report` receives every problem; it throws
 * to stop at the first (all-or-nothing), or returns to skip the identifiable (partial).
 */
export function collectIdentifiables(
  documents: readonly DecodedDocument[],
  validate: boolean,
  report: (problem: ImportProblem) => void,
): ImportCandidate[] {
  const seen = new Map<string, { json: Record<string, unknown>; source: string; where: string }>();
  const candidates: ImportCandidate[] = [];
  for (const document of documents) {
    checkEnvironmentShape(document);
    for (const { key, kind, modelType } of ENVIRONMENT_SECTIONS) {
      const list = (document.environment[key] ?? []) as unknown[];
      list.forEach((raw, index) => {
        const where = `${key}[${index}]`;
        const id = (raw as { id?: unknown } | null)?.id;
        const problem = (error: unknown, idText = typeof id === "string" ? id : undefined) => {
          const converted = toCommandError(error);
          if (!(converted instanceof CommandError)) throw converted;
          report({
            code: converted.code,
            text: `${document.source}, ${where}${idText !== undefined ? ` ('${idText}')` : ""}: ${converted.message}`,
            source: document.source,
            modelType,
            ...(idText !== undefined ? { id: idText } : {}),
            ...(converted.details && converted.details.length > 0 ? { details: converted.details } : {}),
          });
        };
        if (typeof id !== "string")
          return problem(new CommandError("bad-request", `A ${modelType} without a string id`));
        let json: Record<string, unknown>;
        try {
          json = readAas(raw, modelType, { validate }).jsonable;
        } catch (error) {
          return problem(error);
        }
        // Compared in canonical form, so the same shell read from JSON and from XML is the same.
        const earlier = seen.get(id);
        if (earlier) {
          if (isDeepStrictEqual(earlier.json, json)) return;
          const here = `${document.source} (${where})`;
          const there = `${earlier.source} (${earlier.where})`;
          return problem(
            new CommandError("conflict", `The id '${id}' is defined differently in ${there} and in ${here}`),
          );
        }
        seen.set(id, { json, source: document.source, where });
        candidates.push({ kind, id, json, source: document.source, where });
      });
    }
  }
  return candidates;
}

/** Unknown top-level keys and non-list sections make the whole document unreadable (spec §7.2). */
function checkEnvironmentShape(document: DecodedDocument): void {
  const known = new Set(ENVIRONMENT_SECTIONS.map((section) => section.key));
  for (const [key, value] of Object.entries(document.environment)) {
    if (!known.has(key)) {
      throw new CommandError(
        "bad-request",
        `${document.source}: unknown property '${key}' in the environment; known: ${[...known].join(", ")}`,
        { path: key },
      );
    }
    if (value !== null && !Array.isArray(value))
      throw new CommandError("bad-request", `${document.source}: '${key}' must be a list`, { path: key });
  }
}
