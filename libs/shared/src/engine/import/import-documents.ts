import type { OpenedAasx } from "../../aas/index.ts";
import {
  CommandError,
  type ImportDocument,
  type ImportMode,
  type ImportOutcome,
  type ImportProblem,
} from "../../contracts/index.ts";
import type { EngineContext } from "../engine-context.ts";
import { holdForImport, newImportHolder, packageHolder } from "../files/file-holders.ts";
import type { IdentifiableKind } from "../ports/index.ts";
import { ENVIRONMENT_SECTIONS, IdentifiableChecker, type ImportCandidate } from "./collect-identifiables.ts";
import { ImportBatches } from "./import-batches.ts";
import { listedProblems } from "./import-problems.ts";
import { type ImportSource, readSource, sourceOfDocument } from "./import-source.ts";
import { type ImportedPart, type PlacedFiles, placePackageFiles, rewritePaths } from "./package-files.ts";

export interface ImportRequest {
  documents: readonly ImportDocument[];
  mode: ImportMode;
  validate: boolean;
  onlyIfEmpty?: boolean;
  origin?: string;
  correlationId?: string;
}

/** An import of documents read from anywhere (files on disk for start-up models). */
export interface SourcesImportRequest extends Omit<ImportRequest, "documents"> {
  sources: readonly ImportSource[];
}

/** The outcome, plus what was written (an AASX package remembers it, to delete it again). */
export interface ImportResult extends ImportOutcome {
  written: { kind: IdentifiableKind; id: string }[];
  /** The FileStore keys its identifiables use (stored by it or shared; package-files.ts). */
  fileKeys: string[];
  /** Set when files were stored: a package calls it once its record is written. */
  placed?: PlacedFiles;
  /** Identifiables a concurrent writer created first: their commits were refused (a conflict). */
  taken: { kind: IdentifiableKind; id: string }[];
}

/**
 * The one import path of the store: start-up models (-m), POST /import and AASX packages. Each
 * document is read twice, an identifiable at a time, so no document is ever held whole
 * (docs/adr/0037):
 *
 * 1. First pass: every identifiable is read through the metamodel (verified when `validate`) and
 *    merged (deep-equal duplicates collapse, differing ones conflict); a document that cannot be
 *    read fails the whole import with 400, in both modes: nothing is written.
 * 2. Each id is checked against the store.
 *    all-or-nothing: the first problem fails the import before anything is written.
 *    partial: an identifiable with a problem is reported and left out, whole (the unit of import
 *    is the identifiable: a submodel with one invalid element is not imported at all).
 * 3. The package files are stored, never over someone else's (package-files.ts, docs/adr/0051);
 *    then the second pass reads the documents again and commits the identifiables in batches (one
 *    `commitBatch` each: one Redis round trip and fsync for many), each still its own atomic
 *    commit with one `*.created` event, like a POST, with File values and thumbnail paths pointing
 *    where their files went. An import that wrote nothing takes its files back; one that wrote
 *    something records that it holds them (a package: its record, written by the caller).
 */
export async function importDocuments(ctx: EngineContext, request: ImportRequest): Promise<ImportResult> {
  const prepared = await prepareImport(ctx, request);
  const result = await writePrepared(ctx, request, prepared);
  // Listed as reported: at most MAX_LISTED_PROBLEMS, then one entry counting the rest, those the
  // checker only counted included (import-problems.ts).
  return { ...result, problems: listedProblems(result.problems, prepared.checker.unlisted) };
}

/** importDocuments for sources that are not in a command (start-up model files, streamed from disk). */
export async function importSources(ctx: EngineContext, request: SourcesImportRequest): Promise<ImportResult> {
  return await writePrepared(ctx, request, await prepareSources(ctx, request, [...request.sources]));
}

/** The documents read and checked once (the first pass); nothing written yet. */
export interface PreparedImport {
  sources: ImportSource[];
  checker: IdentifiableChecker;
  files: ImportedPart[];
  /** AASX packages opened by the first pass, for the second. */
  decoded: Map<ImportSource, OpenedAasx>;
  result: ImportResult;
  /** The store held nothing when the import began (onlyIfEmpty): no id can be taken but by a racing writer. */
  storeWasEmpty: boolean;
  /** checkIdsFree ran already (a package checks before it writes its intent): not asked again. */
  idsChecked?: boolean;
}

/**
 * The first pass without touching the store: a caller that must replace something (PUT of a
 * package) first learns that the new content is readable, then deletes the old, then writes.
 */
export async function prepareImport(ctx: EngineContext, request: ImportRequest): Promise<PreparedImport> {
  if (!Array.isArray(request.documents) || request.documents.length === 0)
    throw new CommandError("bad-request", "Nothing to import: no document");
  return await prepareSources(
    ctx,
    request,
    request.documents.map((document, index) => sourceOfDocument(document, sourceName(document, index))),
  );
}

/** How a document is named in messages. */
function sourceName(document: ImportDocument, index: number): string {
  return document.source ?? (index === 0 ? "the document" : `document ${index + 1}`);
}

async function prepareSources(
  ctx: EngineContext,
  request: Omit<ImportRequest, "documents">,
  sources: ImportSource[],
): Promise<PreparedImport> {
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
    taken: [],
  };
  if (sources.length === 0) throw new CommandError("bad-request", "Nothing to import: no document");
  const checker = new IdentifiableChecker(request.validate, reporter(request, result));
  const prepared: PreparedImport = { sources, checker, files: [], decoded: new Map(), result, storeWasEmpty: false };
  if (request.onlyIfEmpty) {
    // A restart over live data: nothing to load, so nothing to read either (a large model costs minutes).
    if (!(await storeIsEmpty(ctx))) return { ...prepared, result: { ...result, skipped: true } };
    prepared.storeWasEmpty = true;
  }
  let read = 0;
  // One after the other: each package inflates against its own budget, never two at once.
  for (const [index, source] of sources.entries()) {
    const reading = await readSource(
      source,
      ctx.aasxLimits,
      (item) => {
        checker.check(index, source.source, item);
        ctx.importProgress?.(++read, undefined, "reading");
      },
      prepared.decoded,
    );
    prepared.files.push(...reading.files.map((part) => ({ document: index, part })));
  }
  return prepared;
}

async function storeIsEmpty(ctx: EngineContext): Promise<boolean> {
  const sizes = await Promise.all(ENVIRONMENT_SECTIONS.map(({ kind }) => ctx.repository.countIdentifiables(kind)));
  return sizes.every((n) => n === 0);
}

function reporter(request: Pick<ImportRequest, "mode">, result: ImportResult): (problem: ImportProblem) => void {
  return (problem) => {
    if (request.mode === "all-or-nothing")
      throw new CommandError(problem.code, problem.text, { details: problem.details });
    result.problems.push(problem);
  };
}

/** Ids looked up in the store at once (answers pipelined on one connection). */
const ID_CHECKS_AT_ONCE = 512;

/**
 * Check the ids against the store, write the files, then the second pass commits in batches.
 * `holder`: who will hold the files (in the FileStore, from their placing on): an import records
 * that itself; a package (by its packageId) writes its record with `fileKeys` and then calls
 * `placed.confirmShared()`.
 */
export async function writePrepared(
  ctx: EngineContext,
  request: Omit<ImportRequest, "documents">,
  prepared: PreparedImport,
  holder: "import" | { packageId: string } = "import",
  /** Told where the files went before anything is committed (a package's intent records them). */
  onPlaced?: (keys: readonly string[]) => Promise<void>,
  /** Awaited after each committed batch with the identifiables it wrote (a package claims them). */
  onCommitted?: (written: { kind: IdentifiableKind; id: string }[]) => Promise<void>,
): Promise<ImportResult> {
  const { result } = prepared;
  if (result.skipped) return result;
  if (request.onlyIfEmpty && !prepared.storeWasEmpty && !(await storeIsEmpty(ctx))) return { ...result, skipped: true };
  if (!prepared.storeWasEmpty && !prepared.idsChecked) await checkIdsFree(ctx, request, prepared);

  const holderId = holder === "import" ? newImportHolder() : packageHolder(holder.packageId);
  const placed = await placePackageFiles(ctx, prepared.files, holderId);
  result.fileKeys = placed.keys;
  result.files = placed.keys.length;
  try {
    await onPlaced?.(placed.keys);
    await commitIdentifiables(ctx, request, prepared, placed, onCommitted);
  } catch (error) {
    // Nothing refers to the files yet: the refused import leaves none behind.
    if (result.written.length === 0) await placed.undo();
    throw error;
  }
  if (holder !== "import") return { ...result, placed };
  if (result.written.length === 0) {
    await placed.undo();
    result.files = 0;
    return result;
  }
  await holdForImport(ctx.fileStore, placed.keys, holderId);
  await placed.confirmShared();
  return result;
}

/** The second pass: each identifiable read again, its file paths rewritten, committed in batches. */
async function commitIdentifiables(
  ctx: EngineContext,
  request: Omit<ImportRequest, "documents">,
  prepared: PreparedImport,
  placed: PlacedFiles,
  onCommitted?: (written: { kind: IdentifiableKind; id: string }[]) => Promise<void>,
): Promise<void> {
  const { checker, result } = prepared;
  const report = reporter(request, result);

  const total = checker.size;
  const batches = new ImportBatches(
    ctx,
    request,
    (candidate, written, elements) => {
      if (!written) {
        // Taken meanwhile by a concurrent writer: the same problem as if it had been taken before.
        result.taken.push({ kind: candidate.kind, id: candidate.id });
        report(conflict(candidate));
        return;
      }
      result.written.push({ kind: candidate.kind, id: candidate.id });
      ctx.importProgress?.(result.written.length, total, "writing");
      if (candidate.kind === "shell") result.shells++;
      else if (candidate.kind === "submodel") {
        result.submodels++;
        result.elements += elements;
      } else result.conceptDescriptions++;
    },
    onCommitted,
  );
  try {
    for (const [index, source] of prepared.sources.entries()) {
      await readSource(
        source,
        ctx.aasxLimits,
        async (item) => {
          const candidate = checker.reread(index, source.source, item);
          if (candidate !== undefined)
            await batches.add({ ...candidate, json: rewritePaths(candidate.json, placed.moved.get(index)) });
        },
        prepared.decoded,
      );
    }
  } catch (error) {
    // A batch may still be on its way: what it commits is part of what the caller rolls back.
    await batches.awaitInFlight();
    throw error;
  }
  await batches.finish();
}

/**
 * The prepared identifiables' ids looked up in the store: one already there is a conflict (in
 * all-or-nothing mode thrown as a 409, else reported and skipped). `replaced`: ids the caller will
 * remove before writing (the old content of a package PUT), which are not conflicts. A PUT checks
 * this before removing anything, so a refused PUT leaves the old content in place.
 */
export async function checkIdsFree(
  ctx: EngineContext,
  request: Pick<ImportRequest, "mode">,
  prepared: PreparedImport,
  replaced: ReadonlySet<string> = new Set(),
): Promise<void> {
  const { checker, result } = prepared;
  const report = reporter(request, result);
  prepared.idsChecked = true;
  let pending: { id: string; kind: IdentifiableKind; source: string; where: string }[] = [];
  const lookUp = async () => {
    const kinds = await Promise.all(pending.map(({ id }) => ctx.repository.kindOf(id)));
    kinds.forEach((kind, i) => {
      const taken = pending[i]!;
      if (kind === undefined || replaced.has(taken.id)) return;
      report(conflict(taken));
      checker.refuse(taken.id);
    });
    pending = [];
  };
  for (const id of [...checker.ids()]) {
    pending.push(id);
    if (pending.length >= ID_CHECKS_AT_ONCE) await lookUp();
  }
  await lookUp();
}

function conflict(candidate: Pick<ImportCandidate, "kind" | "id" | "source" | "where">): ImportProblem {
  const modelType = ENVIRONMENT_SECTIONS.find((section) => section.kind === candidate.kind)!.modelType;
  return {
    code: "conflict",
    text: `${candidate.source}, ${candidate.where}: an identifiable with id '${candidate.id}' already exists`,
    source: candidate.source,
    modelType,
    id: candidate.id,
  };
}
