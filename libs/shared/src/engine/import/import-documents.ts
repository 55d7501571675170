import { countSubmodelElements } from "../../aas/count-elements.ts";
import { partKey } from "../../aas/index.ts";
import {
  CommandError,
  type ImportDocument,
  type ImportMode,
  type ImportOutcome,
  type ImportProblem,
} from "../../contracts/index.ts";
import { eventDraft } from "../commit-runner.ts";
import { insertOps } from "../element-io.ts";
import type { EngineContext } from "../engine-context.ts";
import type { IdentifiableKind } from "../ports/index.ts";
import { splitSubmodel } from "../submodel-json.ts";
import { identifiableTarget } from "../write-targets.ts";
import { collectIdentifiables, ENVIRONMENT_SECTIONS, type ImportCandidate } from "./collect-identifiables.ts";
import { type DecodedDocument, decodeDocument, sourceName } from "./decode-document.ts";

export interface ImportRequest {
  documents: readonly ImportDocument[];
  mode: ImportMode;
  validate: boolean;
  onlyIfEmpty?: boolean;
  origin?: string;
  correlationId?: string;
}

/** The outcome, plus what was written (an AASX package remembers it, to delete it again). */
export interface ImportResult extends ImportOutcome {
  written: { kind: IdentifiableKind; id: string }[];
  fileKeys: string[];
}

/**
 * The one import path of the store: start-up models (-m), POST /import and AASX packages.
 *
 * 1. Every document is decoded (JSON, XML, AASX). One that cannot be read fails the whole import
 *    with 400, in both modes: nothing is written.
 * 2. The identifiables are merged (deep-equal duplicates collapse, differing ones conflict) and
 *    read one by one through the metamodel; each id is checked against the store.
 * 3. all-or-nothing: the first problem fails the import before anything is written.
 *    partial: an identifiable with a problem is reported and left out, whole (the unit of import
 *    is the identifiable: a submodel with one invalid element is not imported at all).
 * 4. The package files are written to the FileStore, then each identifiable is committed on its
 *    own (one `*.created` event each, like a POST).
 */
export async function importDocuments(ctx: EngineContext, request: ImportRequest): Promise<ImportResult> {
  return await writePrepared(ctx, request, await prepareImport(ctx, request));
}

/** Decoded documents and their identifiables, read and checked; nothing written yet. */
export interface PreparedImport {
  decoded: DecodedDocument[];
  collected: ImportCandidate[];
  result: ImportResult;
}

/**
 * Steps 1–2 without touching the store: a caller that must replace something (PUT of a package)
 * first learns that the new content is readable, then deletes the old, then writes.
 */
export async function prepareImport(ctx: EngineContext, request: ImportRequest): Promise<PreparedImport> {
  const result: ImportResult = {
    shells: 0,
    submodels: 0,
    conceptDescriptions: 0,
    elements: 0,
    files: 0,
    skipped: false,
    problems: [],
    written: [],
    fileKeys: [],
  };
  if (!Array.isArray(request.documents) || request.documents.length === 0)
    throw new CommandError("bad-request", "Nothing to import: no document");
  // One after the other: each package inflates against its own budget, never two at once.
  const decoded: DecodedDocument[] = [];
  for (const [index, document] of request.documents.entries())
    decoded.push(await decodeDocument(document, sourceName(document, index), ctx.aasxLimits));
  const collected = collectIdentifiables(decoded, request.validate, reporter(request, result));
  return { decoded, collected, result };
}

function reporter(request: ImportRequest, result: ImportResult): (problem: ImportProblem) => void {
  return (problem) => {
    if (request.mode === "all-or-nothing")
      throw new CommandError(problem.code, problem.text, { details: problem.details });
    result.problems.push(problem);
  };
}

/** Steps 3–4: check the ids against the store, write the files, commit each identifiable. */
export async function writePrepared(
  ctx: EngineContext,
  request: ImportRequest,
  prepared: PreparedImport,
): Promise<ImportResult> {
  const { decoded, collected, result } = prepared;
  const report = reporter(request, result);
  if (request.onlyIfEmpty) {
    const sizes = await Promise.all(ENVIRONMENT_SECTIONS.map(({ kind }) => ctx.repository.countIdentifiables(kind)));
    if (sizes.some((n) => n > 0)) return { ...result, skipped: true };
  }
  const candidates: ImportCandidate[] = [];
  for (const candidate of collected) {
    if ((await ctx.repository.kindOf(candidate.id)) === undefined) candidates.push(candidate);
    else report(conflict(candidate));
  }

  for (const document of decoded) {
    for (const file of document.files) {
      const key = partKey(file.path);
      await ctx.fileStore.put(key, { contentType: file.contentType, bytes: file.bytes });
      if (!result.fileKeys.includes(key)) result.fileKeys.push(key);
    }
  }
  result.files = result.fileKeys.length;

  for (const candidate of candidates) {
    const written = await commitCandidate(ctx, candidate, request).then(
      () => true,
      (error: unknown) => {
        // Taken meanwhile by a concurrent writer: the same problem as if it had been taken before.
        if (error instanceof CommandError && error.code === "conflict") {
          report(conflict(candidate));
          return false;
        }
        throw error;
      },
    );
    if (!written) continue;
    result.written.push({ kind: candidate.kind, id: candidate.id });
    ctx.importProgress?.(result.written.length, candidates.length);
    if (candidate.kind === "shell") result.shells++;
    else if (candidate.kind === "submodel") {
      result.submodels++;
      result.elements += countSubmodelElements(candidate.json.submodelElements);
    } else result.conceptDescriptions++;
  }
  return result;
}

function conflict(candidate: ImportCandidate): ImportProblem {
  const modelType = ENVIRONMENT_SECTIONS.find((section) => section.kind === candidate.kind)!.modelType;
  return {
    code: "conflict",
    text: `${candidate.source}, ${candidate.where}: an identifiable with id '${candidate.id}' already exists`,
    source: candidate.source,
    modelType,
    id: candidate.id,
  };
}

async function commitCandidate(ctx: EngineContext, candidate: ImportCandidate, request: ImportRequest): Promise<void> {
  const { kind, id, json } = candidate;
  const { meta, elements } = kind === "submodel" ? splitSubmodel(json) : { meta: json, elements: [] };
  await ctx.commit(identifiableTarget(kind, id), async () => ({
    commit: {
      preconditions: [{ on: "id-free", id }],
      ops: [{ op: "put-identifiable", kind, id, json: JSON.stringify(meta) }, ...insertOps(id, "", elements, false)],
      event: eventDraft(
        { kind: `${kind}.created`, id, origin: request.origin ?? "load", correlationId: request.correlationId },
        json,
        ctx.clock.now(),
      ),
    },
  }));
}
