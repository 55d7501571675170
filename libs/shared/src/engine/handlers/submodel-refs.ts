import { decodeBase64Url, echoed, encodeBase64Url, readModel } from "../../aas/index.ts";
import { type Command, CommandError, type Paged, type PageRequest } from "../../contracts/index.ts";
import { rethrowAsCommandError } from "../aas-input.ts";
import type { EngineContext } from "../engine-context.ts";
import { requireIdentifiable } from "../identifiables.ts";
import { pageCursor, pageLimit } from "../paging.ts";
import { listTag } from "../ports/index.ts";
import { rewriteShell } from "../shell-rewrite.ts";
import { jsonObjectBody } from "./asset-information.ts";
import type { Handled } from "./handled.ts";

interface ReferenceJson {
  type?: string;
  keys?: { type?: string; value?: string }[];
}

/** The submodel a reference in `shell.submodels` points to: the value of its last (Submodel) key. */
export function referencedSubmodelId(reference: unknown): string | undefined {
  const keys = (reference as ReferenceJson | undefined)?.keys ?? [];
  const last = keys[keys.length - 1];
  return last?.type === "Submodel" ? last.value : undefined;
}

function referencesOf(shell: Record<string, unknown>): unknown[] {
  return Array.isArray(shell.submodels) ? shell.submodels : [];
}

/** AAS API: GET /shells/{aasIdentifier}/submodel-refs, paged. */
export async function getAllSubmodelReferences(
  ctx: EngineContext,
  cmd: Command<"GetAllSubmodelReferences">,
): Promise<Handled<Paged<unknown>>> {
  const limit = pageLimit(cmd.params.page);
  const cursor = pageCursor(cmd.params.page);
  const stored = await requireIdentifiable(ctx, "shell", cmd.params.aasId);
  const references = referencesOf(JSON.parse(stored.json));
  const start = cursor === undefined ? 0 : resumeAt(cmd.params.aasId, references, cursor, cmd.params.page);
  const items = references.slice(start, start + limit);
  const next = start + items.length;
  const value: Paged<unknown> =
    next < references.length ? { items, cursor: referencesCursor(cmd.params.aasId, references, next) } : { items };
  return { value, revision: stored.revision };
}

/** AAS API: POST /shells/{aasIdentifier}/submodel-refs appends a ModelReference to a Submodel. */
export async function postSubmodelReference(
  ctx: EngineContext,
  cmd: Command<"PostSubmodelReference">,
): Promise<Handled<unknown>> {
  const { aasId } = cmd.params;
  let reference: Record<string, unknown>;
  try {
    reference = readModel(jsonObjectBody(cmd.params.body, "Reference"), "Reference", {
      validate: ctx.validation.onUpdate,
    }).jsonable;
  } catch (error) {
    rethrowAsCommandError(error);
  }
  const submodelId = referencedSubmodelId(reference);
  if (reference.type !== "ModelReference" || submodelId === undefined) {
    throw new CommandError(
      "validation",
      'A submodel reference must be a ModelReference whose last key has the type "Submodel"',
    );
  }
  // The target of the POST is the shell's list of references, part of the shell: its ETag is the
  // shell's (docs/http-api.md, Concurrency).
  const { event } = await rewriteShell(ctx, {
    aasId,
    preconditions: cmd.params.preconditions,
    origin: cmd.origin,
    correlationId: cmd.correlationId,
    // Only the references are written: a violation elsewhere in the shell is not this write's.
    verify: "brought",
    change: (shell) => {
      const references = referencesOf(shell);
      if (references.some((existing) => referencedSubmodelId(existing) === submodelId)) {
        throw new CommandError(
          "conflict",
          `The Asset Administration Shell '${echoed(aasId)}' already references the Submodel '${echoed(submodelId)}'`,
        );
      }
      return { ...shell, submodels: [...references, reference] };
    },
  });
  return { value: reference, revision: event.revision };
}

/** AAS API: DELETE /shells/{aasIdentifier}/submodel-refs/{submodelIdentifier}: only the reference goes. */
export async function deleteSubmodelReference(
  ctx: EngineContext,
  cmd: Command<"DeleteSubmodelReferenceById">,
): Promise<Handled<null>> {
  const { aasId, submodelId, preconditions } = cmd.params;
  const { event } = await rewriteShell(ctx, {
    aasId,
    preconditions,
    origin: cmd.origin,
    correlationId: cmd.correlationId,
    // Only the references are written: a violation elsewhere in the shell is not this write's.
    verify: "brought",
    requirePart: (shell) => {
      if (!referencesOf(shell).some((reference) => referencedSubmodelId(reference) === submodelId))
        throw new CommandError(
          "not-found",
          `The Asset Administration Shell '${echoed(aasId)}' has no reference to the Submodel '${echoed(submodelId)}'`,
        );
    },
    change: (shell) => {
      const kept = referencesOf(shell).filter((reference) => referencedSubmodelId(reference) !== submodelId);
      // An empty list is not valid AAS JSON (minItems 1): no references means no `submodels`.
      const { submodels: _dropped, ...rest } = shell;
      return kept.length > 0 ? { ...rest, submodels: kept } : rest;
    },
  });
  return { value: null, revision: event.revision };
}

/**
 * The references live in one array of the shell record, so the cursor names where to resume by
 * content, not by position alone: the next reference's submodel id (resume there), the last one's
 * (resume after it, when the next was deleted) and the index (when both were deleted). References
 * added or removed elsewhere between pages then neither repeat nor skip one. It starts with a tag of
 * the shell: another shell's cursor named a place in this one and skipped references.
 */
function referencesCursor(aasId: string, references: unknown[], next: number): string {
  const key = (index: number) =>
    index >= 0 && index < references.length ? (referencedSubmodelId(references[index]) ?? null) : null;
  return encodeBase64Url(JSON.stringify([listTag("submodel-refs", aasId), key(next), key(next - 1), next]));
}

function resumeAt(aasId: string, references: unknown[], cursor: string, page: PageRequest | undefined): number {
  let state: unknown;
  try {
    state = JSON.parse(decodeBase64Url(cursor));
  } catch {
    state = undefined;
  }
  if (
    !Array.isArray(state) ||
    state.length !== 4 ||
    state[0] !== listTag("submodel-refs", aasId) ||
    !Number.isInteger(state[3]) ||
    state[3] < 0
  ) {
    throw new CommandError(
      "bad-request",
      `Invalid cursor '${echoed(page?.cursor ?? cursor)}': not a cursor this list gave (it may be cut short, or another shell's)`,
    );
  }
  const [, next, last, index] = state as [string, string | null, string | null, number];
  const ids = references.map(referencedSubmodelId);
  if (next !== null && ids.includes(next)) return ids.indexOf(next);
  if (last !== null && ids.includes(last)) return ids.indexOf(last) + 1;
  return Math.min(index, references.length);
}
