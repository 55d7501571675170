import { createHash } from "node:crypto";
import {
  type AasClassName,
  checkElementsAddressable,
  detectJsonFormatProblem,
  type ElementJson,
  type EnvironmentItem,
  type EnvironmentSectionKey,
  readAas,
  withArticle,
} from "../../aas/index.ts";
import { CommandError, type ImportProblem } from "../../contracts/index.ts";
import { toCommandError } from "../aas-input.ts";
import type { IdentifiableKind } from "../ports/index.ts";
import { MAX_LISTED_PROBLEMS } from "./import-problems.ts";

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
  key: EnvironmentSectionKey;
  kind: IdentifiableKind;
  modelType: ImportProblem["modelType"] & AasClassName;
}[] = [
  { key: "assetAdministrationShells", kind: "shell", modelType: "AssetAdministrationShell" },
  { key: "submodels", kind: "submodel", modelType: "Submodel" },
  { key: "conceptDescriptions", kind: "concept-description", modelType: "ConceptDescription" },
];

const SECTION_BY_KEY = new Map(ENVIRONMENT_SECTIONS.map((section) => [section.key, section]));

/** What the first pass remembers of an id: enough to merge duplicates, not the identifiable itself. */
interface SeenId {
  kind: IdentifiableKind;
  /** Digest of the canonical JSON: deep-equal duplicates have the same one. */
  digest: string;
  source: string;
  where: string;
  /** The occurrence that is written (`<document>:<where>`); later deep-equal ones collapse into it. */
  first: string;
}

/**
 * The identifiables of several documents, merged as they stream past (spec §7.3): the same id with
 * deep-equal content collapses silently, the same id with other content is a conflict naming both
 * places. Each one is read on its own (unknown properties refused, verified when `validate`), so a
 * partial import can leave out exactly the identifiables that fail. `report` receives every
 * problem; it throws to stop at the first (all-or-nothing), or returns to skip the identifiable
 * (partial). Memory: a digest per id, never the identifiables.
 */
export class IdentifiableChecker {
  private readonly seen = new Map<string, SeenId>();
  /** Ids left out whole (a problem in partial mode). */
  private readonly refused = new Set<string>();

  /** Problems reported so far, and those counted but not handed on (over MAX_LISTED_PROBLEMS). */
  private reported = 0;
  private unlistedProblems = 0;
  private readonly report: (problem: ImportProblem) => void;

  constructor(
    private readonly validate: boolean,
    report: (problem: ImportProblem) => void,
  ) {
    // A partial import of a million `{}` would otherwise list a million problems (~250 MB, and a
    // reply of that size): past the first ones, the rest are only counted (see import-problems.ts).
    this.report = (problem) => {
      if (++this.reported > MAX_LISTED_PROBLEMS) this.unlistedProblems++;
      else report(problem);
    };
  }

  /** Problems met but not reported (over MAX_LISTED_PROBLEMS). */
  get unlisted(): number {
    return this.unlistedProblems;
  }

  /** The first pass: reads and checks one identifiable; answers it when it is to be written. */
  check(document: number, source: string, item: EnvironmentItem): ImportCandidate | undefined {
    const candidate = readItem(source, item, this.validate, this.report);
    if (candidate === undefined) return undefined;
    const digest = digestOf(candidate.json);
    const earlier = this.seen.get(candidate.id);
    if (earlier) {
      if (earlier.digest === digest) return undefined;
      const here = `${source} (${candidate.where})`;
      const there = `${earlier.source} (${earlier.where})`;
      problem(
        source,
        item,
        candidate.id,
        new CommandError(
          "conflict",
          `The id '${candidate.id}' is defined differently in ${there} and in ${here}; neither is imported`,
        ),
        this.report,
      );
      // Left out whole (docs/models-and-packages.md): the first definition won silently before.
      this.refused.add(candidate.id);
      return undefined;
    }
    this.seen.set(candidate.id, {
      kind: candidate.kind,
      digest,
      source,
      where: candidate.where,
      first: `${document}:${candidate.where}`,
    });
    return candidate;
  }

  /** Leaves an id out of the write (its problem was reported). */
  refuse(id: string): void {
    this.refused.add(id);
  }

  /** Every id to be written, with where it was first read. */
  *ids(): Iterable<{ id: string; kind: IdentifiableKind; source: string; where: string }> {
    for (const [id, seen] of this.seen)
      if (!this.refused.has(id)) yield { id, kind: seen.kind, source: seen.source, where: seen.where };
  }

  get size(): number {
    return this.seen.size - this.refused.size;
  }

  /**
   * The second pass: the identifiable to write at this place, read again (not re-verified: the
   * first pass did), or undefined for a duplicate, a refused one, or one the first pass left out.
   */
  reread(document: number, source: string, item: EnvironmentItem): ImportCandidate | undefined {
    const id = (item.value as { id?: unknown } | null)?.id;
    if (typeof id !== "string" || this.refused.has(id)) return undefined;
    const seen = this.seen.get(id);
    if (seen?.first !== `${document}:${item.key}[${item.index}]`) return undefined;
    // Most documents are written in canonical form already (ours are): then what was read is what
    // the first pass checked, and reading it through the metamodel again would only cost time.
    const { kind } = SECTION_BY_KEY.get(item.key)!;
    if (digestOf(item.value as Record<string, unknown>) === seen.digest)
      return { kind, id, json: item.value as Record<string, unknown>, source, where: `${item.key}[${item.index}]` };
    return readItem(source, item, false, (found) => {
      // The document changed between the passes (a file edited during start-up): refuse it loudly.
      throw new CommandError(found.code, `${found.text} (the document changed while it was imported)`);
    });
  }
}

/**
 * Spec §9.2: a v2.x or v3.0 RC model must be converted, not half-read. Looked for only in what
 * failed to read (valid v3.0 never shows the signs), and then it fails the whole document.
 */
function legacyFormat(source: string, item: EnvironmentItem): void {
  const legacy = detectJsonFormatProblem({ [item.key]: [item.value] });
  if (legacy !== undefined)
    throw new CommandError(
      "bad-request",
      `${source}: ${legacy.replace(`${item.key}[0]`, `${item.key}[${item.index}]`)}`,
    );
}

function digestOf(json: Record<string, unknown>): string {
  let text: string;
  try {
    text = JSON.stringify(json);
  } catch (error) {
    // Over V8's longest string (~512 M characters): it could not be stored either.
    if (error instanceof RangeError)
      throw new CommandError(
        "payload-too-large",
        `The identifiable '${String(json.id)}' is too large to be stored as one record (${error.message})`,
      );
    throw error;
  }
  return createHash("sha1").update(text).digest("base64");
}

function readItem(
  source: string,
  item: EnvironmentItem,
  validate: boolean,
  report: (problem: ImportProblem) => void,
): ImportCandidate | undefined {
  const { kind, modelType } = SECTION_BY_KEY.get(item.key)!;
  const where = `${item.key}[${item.index}]`;
  const id = (item.value as { id?: unknown } | null)?.id;
  if (typeof id !== "string") {
    legacyFormat(source, item);
    problem(
      source,
      item,
      undefined,
      new CommandError("bad-request", `${withArticle(String(modelType), true)} without a string id`),
      report,
    );
    return undefined;
  }
  try {
    const json = readAas(item.value, modelType, { validate }).jsonable;
    // What the store could not keep apart is refused here too, named with its file and identifiable.
    if (kind === "submodel" && Array.isArray(json.submodelElements))
      checkElementsAddressable(json.submodelElements as ElementJson[]);
    return { kind, id, json, source, where };
  } catch (error) {
    legacyFormat(source, item);
    problem(source, item, id, error, report);
    return undefined;
  }
}

function problem(
  source: string,
  item: EnvironmentItem,
  id: string | undefined,
  error: unknown,
  report: (problem: ImportProblem) => void,
): void {
  const converted = toCommandError(error);
  if (!(converted instanceof CommandError)) throw converted;
  const { modelType } = SECTION_BY_KEY.get(item.key)!;
  report({
    code: converted.code,
    text: `${source}, ${item.key}[${item.index}]${id !== undefined ? ` ('${id}')` : ""}: ${converted.message}`,
    source,
    modelType,
    ...(id !== undefined ? { id } : {}),
    ...(converted.details && converted.details.length > 0 ? { details: converted.details } : {}),
  });
}
