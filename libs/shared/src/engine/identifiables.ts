import { echoed } from "../aas/index.ts";
import { CommandError } from "../contracts/index.ts";
import type { EngineContext } from "./engine-context.ts";
import type { IdentifiableKind, StoredIdentifiable } from "./ports/index.ts";
import { checkPreconditions } from "./preconditions.ts";

const KIND_LABEL: Record<IdentifiableKind, string> = {
  shell: "Asset Administration Shell",
  submodel: "Submodel",
  "concept-description": "Concept Description",
};

export function notFound(kind: IdentifiableKind, id: string): CommandError {
  return new CommandError("not-found", `${KIND_LABEL[kind]} with id '${echoed(id)}' not found`);
}

/** Read an identifiable of exactly this kind: an id held by another kind is a 404 too (spec §7). */
export async function requireIdentifiable(
  ctx: EngineContext,
  kind: IdentifiableKind,
  id: string,
): Promise<StoredIdentifiable> {
  const stored = await ctx.repository.getIdentifiable(kind, id);
  if (!stored) throw notFound(kind, id);
  return stored;
}

/** The id in a PUT body must be the id in the path: a PUT never renames. */
export function requireSameId(kind: IdentifiableKind, pathId: string, body: Record<string, unknown>): void {
  if (body.id !== pathId) {
    throw new CommandError(
      "bad-request",
      `The id in the body ('${echoed(String(body.id))}') differs from the ${KIND_LABEL[kind]} id in the path ('${echoed(pathId)}')`,
    );
  }
}

/** Read for a write: existence, then the client's If-Match/If-None-Match against what we read. */
export async function readForWrite(
  ctx: EngineContext,
  kind: IdentifiableKind,
  id: string,
  preconditions: Parameters<typeof checkPreconditions>[0],
): Promise<StoredIdentifiable> {
  const stored = await ctx.repository.getIdentifiable(kind, id);
  checkPreconditions(preconditions, stored?.revision);
  if (!stored) throw notFound(kind, id);
  return stored;
}

/** Guard for a compare-and-set commit: the identifiable still has the revision we read. */
export function unchanged(stored: StoredIdentifiable) {
  return { on: "identifiable" as const, kind: stored.kind, id: stored.id, revision: stored.revision };
}
