import { echoed, submodelReference, toMetadata } from "../../aas/index.ts";
import { type Command, CommandError, type OutputModifiers, type Paged } from "../../contracts/index.ts";
import { readBody } from "../aas-input.ts";
import { filterElements } from "../access/element-filter.ts";
import { recordShown } from "../access/element-on-the-way.ts";
import type { ElementScope } from "../access/id-short-path-scope.ts";
import { eventDraft } from "../commit-runner.ts";
import { deleteOps, insertOps, loadAllElements } from "../element-io.ts";
import type { EngineContext } from "../engine-context.ts";
import { claimedCommit } from "../files/claimed-commit.ts";
import { fileValuesOfElements, type HeldUpload, releaseUploads, uploadsHeldBy } from "../files/released-uploads.ts";
import { commitSubmodelDelete } from "../files/submodel-delete.ts";
import { readForWrite, requireIdentifiable, requireSameId, unchanged } from "../identifiables.ts";
import { indexTerm, referenceTerms } from "../index-terms.ts";
import { listFiltered, pageCursor } from "../paging.ts";
import { pageSubmodelPaths } from "../path-pages.ts";
import { checkCollectionPreconditions } from "../preconditions.ts";
import { projectSubmodel } from "../projection.ts";
import { parseReferenceFilter, referenceMatches } from "../reference-filter.ts";
import { joinSubmodel, splitSubmodel } from "../submodel-json.ts";
import { checkSubmodelScope } from "../submodel-scope.ts";
import { submodelSemanticIdOf } from "../submodel-semantic-id.ts";
import { identifiableTarget } from "../write-targets.ts";
import type { Handled } from "./handled.ts";
import { deleteSubmodelReference } from "./submodel-refs.ts";

function depthOf(modifiers: OutputModifiers | undefined): number | undefined {
  return modifiers?.level === "core" ? 1 : undefined;
}

/**
 * The filters of GET /submodels (AAS API §l): exact idShort; semanticId as a Reference or a key
 * value. With the index terms a match carries (docs/adr/0035).
 */
function submodelFilter(params: Command<"GetAllSubmodels">["params"]): {
  matches: (submodel: Record<string, unknown>) => boolean;
  terms: string[];
} {
  const semanticId =
    params.semanticId === undefined ? undefined : parseReferenceFilter("semanticId", params.semanticId);
  return {
    matches: (submodel) =>
      (params.idShort === undefined || submodel.idShort === params.idShort) &&
      (semanticId === undefined || referenceMatches(submodel.semanticId, semanticId)),
    terms: [
      ...(params.idShort === undefined ? [] : [indexTerm("idShort", params.idShort)]),
      ...(semanticId === undefined ? [] : referenceTerms("semanticId", semanticId)),
    ],
  };
}

/**
 * A submodel in the form the modifiers ask for. `$metadata` and `$reference` need only the
 * submodel's own record and `$path` only the paths; the elements are read for the other forms.
 */
async function submodelIn(
  ctx: EngineContext,
  meta: Record<string, unknown>,
  modifiers: OutputModifiers | undefined,
  scope?: ElementScope,
  size?: { chars: number },
): Promise<unknown> {
  const id = meta.id as string;
  switch (modifiers?.content ?? "normal") {
    case "metadata":
      return toMetadata(meta);
    case "reference":
      return submodelReference(id);
    case "path":
      // Not paged: a plain PathItem[] of every element (deep) or the top-level ones (core).
      return (await ctx.repository.getSubtree(id, "", depthOf(modifiers)))
        .filter((record) => scope === undefined || recordShown(scope, record))
        .map((record) => record.path);
    default: {
      // A caller who may read only parts of the submodel gets only those (docs/security.md "Rules").
      const elements = await loadAllElements(ctx.repository, id, depthOf(modifiers), size);
      return projectSubmodel(
        joinSubmodel(meta, scope && !scope.whole ? filterElements(elements, scope, "") : elements),
        modifiers,
      );
    }
  }
}

export async function getAllSubmodels(
  ctx: EngineContext,
  cmd: Command<"GetAllSubmodels">,
): Promise<Handled<Paged<unknown>>> {
  const { modifiers, page } = cmd.params;
  pageCursor(page);
  const { matches, terms } = submodelFilter(cmd.params);
  const scopeOf = ctx.access?.submodelReadScope;
  // Only submodels the caller may read at all are listed (and count towards the page).
  const keep =
    scopeOf === undefined
      ? matches
      : (submodel: Record<string, unknown>) => matches(submodel) && scopeOf(submodel) !== undefined;
  // $path lists idShortPaths, so it pages by path across the submodels, not by submodel.
  if (modifiers?.content === "path")
    return { value: await pageSubmodelPaths(ctx.repository, page, keep, modifiers.level, scopeOf, terms) };
  const list = (p: typeof page) =>
    listFiltered(ctx.repository, "submodel", p, keep, undefined, scopeOf !== undefined, terms);
  const metas = await list(page);
  const all = metas.items as Record<string, unknown>[];
  // A page of big submodels ends early, with a cursor, once it holds PAGE_BUDGET_CHARS of element
  // records: a hundred submodels of a 1M-element model would otherwise make one JSON text near
  // V8's longest string (a 500) and hold them all in memory at once. Read a few at a time.
  const items: unknown[] = [];
  const size = { chars: 0 };
  const budget = ctx.pageBudgetChars ?? PAGE_BUDGET_CHARS;
  for (let at = 0; at < all.length; at += SUBMODELS_AT_ONCE) {
    const chunk = all.slice(at, at + SUBMODELS_AT_ONCE);
    const sizes = chunk.map(() => ({ chars: 0 }));
    const rendered = await Promise.all(
      chunk.map((meta, i) => submodelIn(ctx, meta, modifiers, scopeOf?.(meta), sizes[i])),
    );
    for (const [i, item] of rendered.entries()) {
      if (items.length > 0 && size.chars + sizes[i]!.chars > budget) {
        // The same first items again, with the cursor right after the last one kept (keyset paging).
        // Should a delete meanwhile have changed them, the page goes out whole instead.
        const shorter = await list({ ...page, limit: items.length });
        const same = shorter.items.every((meta, k) => (meta as { id?: unknown }).id === all[k]!.id);
        if (same && shorter.items.length === items.length)
          return { value: shorter.cursor === undefined ? { items } : { items, cursor: shorter.cursor } };
        items.push(...rendered.slice(i));
        for (const meta of all.slice(at + chunk.length))
          items.push(await submodelIn(ctx, meta, modifiers, scopeOf?.(meta)));
        return { value: metas.cursor === undefined ? { items } : { items, cursor: metas.cursor } };
      }
      size.chars += sizes[i]!.chars;
      items.push(item);
    }
  }
  return { value: metas.cursor === undefined ? { items } : { items, cursor: metas.cursor } };
}

/** Element record characters after which a page of submodels ends early (see getAllSubmodels). */
export const PAGE_BUDGET_CHARS = 64 * 1024 * 1024;
/** Submodels assembled at once while a page is built. */
const SUBMODELS_AT_ONCE = 8;

export async function getSubmodel(ctx: EngineContext, cmd: Command<"GetSubmodelById">): Promise<Handled<unknown>> {
  const { submodelId, modifiers } = cmd.params;
  await checkSubmodelScope(ctx, cmd.params);
  const stored = await requireIdentifiable(ctx, "submodel", submodelId);
  const scope = ctx.access?.partialScope;
  // What a partial reader sees is not what the cache holds: assembled for them alone.
  if (scope !== undefined)
    return { value: await submodelIn(ctx, JSON.parse(stored.json), modifiers, scope), revision: stored.revision };
  const cached = ctx.renderedSubmodels?.get(submodelId, stored.revision, modifiers);
  if (cached !== undefined) return { value: cached, revision: stored.revision };
  const value = await submodelIn(ctx, JSON.parse(stored.json), modifiers);
  ctx.renderedSubmodels?.set(submodelId, stored.revision, modifiers, value);
  return { value, revision: stored.revision };
}

export async function postSubmodel(ctx: EngineContext, cmd: Command<"PostSubmodel">): Promise<Handled<unknown>> {
  const submodel = readBody(cmd.params.body, "Submodel", ctx.validation.onCreate);
  checkCollectionPreconditions(cmd.params.preconditions);
  const id = submodel.id as string;
  const { meta, elements } = splitSubmodel(submodel);
  const event = await ctx.commit(identifiableTarget("submodel", id), async () => ({
    commit: {
      preconditions: [{ on: "id-free", id }],
      ops: [
        { op: "put-identifiable", kind: "submodel", id, json: JSON.stringify(meta) },
        ...insertOps(id, "", elements, false),
      ],
      event: eventDraft(
        { kind: "submodel.created", id, origin: cmd.origin, correlationId: cmd.correlationId },
        submodel,
        ctx.clock.now(),
      ),
    },
  }));
  return { value: submodel, revision: event.revision };
}

export async function putSubmodel(ctx: EngineContext, cmd: Command<"PutSubmodelById">): Promise<Handled<null>> {
  const { submodelId, preconditions } = cmd.params;
  const submodel = readBody(cmd.params.body, "Submodel", ctx.validation.onUpdate);
  requireSameId("submodel", submodelId, submodel);
  await checkSubmodelScope(ctx, cmd.params);
  const { meta, elements } = splitSubmodel(submodel);
  let held: HeldUpload[] = [];
  const event = await claimedCommit(ctx, cmd.params.body, () =>
    ctx.commit(identifiableTarget("submodel", submodelId), async () => {
      const stored = await readForWrite(ctx, "submodel", submodelId, preconditions);
      // Replace in place (the submodel keeps its position in /submodels): drop old element records.
      const old = await ctx.repository.getSubtree(submodelId, "");
      // The old records are read anyway: the uploads their File elements hold come free.
      held = uploadsHeldBy(old);
      return {
        commit: {
          preconditions: [unchanged(stored)],
          ops: [
            ...deleteOps(submodelId, old),
            { op: "put-identifiable", kind: "submodel", id: submodelId, json: JSON.stringify(meta) },
            ...insertOps(submodelId, "", elements, false),
          ],
          event: eventDraft(
            { kind: "submodel.updated", id: submodelId, origin: cmd.origin, correlationId: cmd.correlationId },
            submodel,
            ctx.clock.now(),
          ),
        },
      };
    }),
  );
  // Committed: an upload whose File now names something else, or is gone, goes (released-uploads.ts).
  if (held.length > 0) await releaseUploads(ctx, submodelId, held, fileValuesOfElements(elements));
  return { value: null, revision: event.revision };
}

/**
 * DELETE /submodels/{id}; below a shell (/shells/{aas}/submodels/{id}) the v3.0.1 summary says the
 * submodel goes from the shell AND the repository: the submodel is deleted first (the client's
 * If-Match applies to it), then the shell's reference, each in its own commit with its own event,
 * so every subscriber sees both changes.
 */
export async function deleteSubmodel(ctx: EngineContext, cmd: Command<"DeleteSubmodelById">): Promise<Handled<null>> {
  const { submodelId, aasId, preconditions } = cmd.params;
  await checkSubmodelScope(ctx, cmd.params);
  const reference =
    aasId === undefined
      ? undefined
      : {
          type: "DeleteSubmodelReferenceById" as const,
          params: { aasId, submodelId },
          origin: cmd.origin,
          correlationId: cmd.correlationId,
        };
  // Its File elements' uploads go with it (files/submodel-delete.ts).
  const deleted = commitSubmodelDelete(ctx, submodelId, () =>
    ctx.commit(identifiableTarget("submodel", submodelId), async () => {
      const stored = await readForWrite(ctx, "submodel", submodelId, preconditions);
      return {
        commit: {
          preconditions: [unchanged(stored)],
          ops: [{ op: "delete-identifiable", kind: "submodel", id: submodelId }],
          event: {
            ...eventDraft(
              { kind: "submodel.deleted", id: submodelId, origin: cmd.origin, correlationId: cmd.correlationId },
              undefined,
              ctx.clock.now(),
            ),
            // What it was: a subscriber granted by semanticId can tell who may hear of its end.
            submodelSemanticId: submodelSemanticIdOf(stored.json),
          },
        },
      };
    }),
  );
  if (reference === undefined) {
    await deleted;
    return { value: null };
  }
  try {
    await deleted;
  } catch (error) {
    // Deleted before, but its reference stayed (the second commit failed, and the client was told
    // the write was applied in part): a repeat completes it. Without a condition only: a tag names
    // a submodel that is not there.
    const conditional = (preconditions?.ifMatch?.length ?? 0) + (preconditions?.ifNoneMatch?.length ?? 0) > 0;
    if (!(error instanceof CommandError && error.code === "not-found") || conditional) throw error;
    await deleteSubmodelReference(ctx, reference).catch(() => {
      throw error;
    });
    return { value: null };
  }
  // The shell or its reference may be gone meanwhile; then there is nothing left to remove.
  await deleteSubmodelReference(ctx, reference).catch((error: unknown) => {
    if (error instanceof CommandError && error.code === "not-found") return;
    if (!(error instanceof Error && error.name === "RepositoryUnavailableError")) throw error;
    // The submodel is gone and the reference is not: a 504 that says how to finish it. With the
    // submodel gone, a repeat with the If-Match it had would be a 404 (the tag names nothing).
    throw new CommandError(
      "timeout",
      `The submodel '${echoed(submodelId)}' was deleted, but removing its reference from the shell '${echoed(aasId!)}' failed (${error.message}); repeat this DELETE without If-Match to remove it`,
    );
  });
  return { value: null };
}
