import { CommandError } from "../../contracts/index.ts";
import { loadAllElements } from "../element-io.ts";
import type { EngineContext } from "../engine-context.ts";
import { notFound, requireIdentifiable } from "../identifiables.ts";
import type { IdentifiableKind, StoredIdentifiable } from "../ports/index.ts";
import { joinSubmodel } from "../submodel-json.ts";

export interface EnvironmentSelection {
  aasIds?: readonly string[];
  submodelIds?: readonly string[];
  includeConceptDescriptions: boolean;
}

export interface SelectedEnvironment {
  shells: Record<string, unknown>[];
  submodels: Record<string, unknown>[];
  conceptDescriptions: Record<string, unknown>[];
}

const PAGE = 500;

/**
 * What GenerateSerializationByIds serializes (AAS API digest §j):
 * - no ids at all: the whole repository (and every concept description, unless excluded);
 * - otherwise exactly the shells and submodels named (an unknown id is a 404); a shell's submodels
 *   are NOT added implicitly: ask for them with submodelIds;
 * - with includeConceptDescriptions, the concept descriptions that the included shells and
 *   submodels reference anywhere (semanticId, valueId, isCaseOf, data specifications, …), and
 *   the ones those reference in turn.
 */
export async function selectEnvironment(
  ctx: EngineContext,
  selection: EnvironmentSelection,
): Promise<SelectedEnvironment> {
  const aasIds = unique(selection.aasIds);
  const submodelIds = unique(selection.submodelIds);
  // With access rules: what the caller may read. A submodel is serialized only whole, so a caller
  // who may read only some of its elements does not get it here (docs/security.md "Rules").
  const access = ctx.access;
  const shellOk = (shell: Record<string, unknown>) => access === undefined || access.readableShell(shell.id as string);
  const submodelOk = (submodel: Record<string, unknown>) =>
    access === undefined || access.submodelReadScope(submodel)?.whole === true;
  const cdOk = (cd: Record<string, unknown>) =>
    access === undefined || access.readableConceptDescription(cd.id as string);
  if (aasIds.length === 0 && submodelIds.length === 0) {
    return {
      shells: (await listAll(ctx, "shell")).filter(shellOk),
      submodels: await Promise.all(
        (await listAll(ctx, "submodel")).filter(submodelOk).map((meta) => withElements(ctx, meta)),
      ),
      conceptDescriptions: selection.includeConceptDescriptions
        ? (await listAll(ctx, "concept-description")).filter(cdOk)
        : [],
    };
  }
  // Named ids are asked for one by one: one the caller may not read refuses the request.
  const readable = <T extends Record<string, unknown>>(item: T, ok: (item: T) => boolean, kind: string): T => {
    if (!ok(item)) throw new CommandError("forbidden", `Not allowed: READ on ${kind} '${String(item.id)}'`);
    return item;
  };
  const shells = (await resolveIds(ctx, "shell", aasIds)).map((stored) =>
    readable(JSON.parse(stored.json) as Record<string, unknown>, shellOk, "shell"),
  );
  const submodels: Record<string, unknown>[] = [];
  for (const stored of await resolveIds(ctx, "submodel", submodelIds))
    submodels.push(
      await withElements(ctx, readable(JSON.parse(stored.json) as Record<string, unknown>, submodelOk, "submodel")),
    );
  const conceptDescriptions = selection.includeConceptDescriptions
    ? (await referencedConceptDescriptions(ctx, [...shells, ...submodels])).filter(cdOk)
    : [];
  return { shells, submodels, conceptDescriptions };
}

/**
 * The identifiables the ids name. FA³ST sends several ids as ONE base64url value of the ids joined
 * with commas; an id that does not exist but contains commas is read that way when every part
 * exists (an id that really contains a comma still wins, being looked up first).
 */
async function resolveIds(
  ctx: EngineContext,
  kind: IdentifiableKind,
  ids: readonly string[],
): Promise<StoredIdentifiable[]> {
  const found = new Map<string, StoredIdentifiable>();
  for (const id of ids) {
    const stored = await ctx.repository.getIdentifiable(kind, id);
    if (stored) {
      found.set(stored.id, stored);
      continue;
    }
    const parts = id
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== "");
    if (parts.length < 2) throw notFound(kind, id);
    for (const part of parts) {
      const one = await requireIdentifiable(ctx, kind, part);
      found.set(one.id, one);
    }
  }
  return [...found.values()];
}

function unique(ids: readonly string[] | undefined): string[] {
  return [...new Set(ids ?? [])];
}

async function listAll(ctx: EngineContext, kind: IdentifiableKind): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const page = await ctx.repository.listIdentifiables(kind, { cursor, limit: PAGE });
    for (const stored of page.items) all.push(JSON.parse(stored.json));
    cursor = page.cursor;
  } while (cursor !== undefined);
  return all;
}

async function withElements(ctx: EngineContext, meta: Record<string, unknown>): Promise<Record<string, unknown>> {
  return joinSubmodel(meta, await loadAllElements(ctx.repository, meta.id as string));
}

/** Concept descriptions reachable through Reference keys, transitively (a CD may reference others). */
async function referencedConceptDescriptions(
  ctx: EngineContext,
  roots: readonly unknown[],
): Promise<Record<string, unknown>[]> {
  const found = new Map<string, Record<string, unknown>>();
  const checked = new Set<string>();
  let pending = keyValuesIn(roots);
  while (pending.length > 0) {
    const next: string[] = [];
    for (const value of pending) {
      if (checked.has(value)) continue;
      checked.add(value);
      const stored = await ctx.repository.getIdentifiable("concept-description", value);
      if (!stored) continue;
      const cd = JSON.parse(stored.json) as Record<string, unknown>;
      found.set(value, cd);
      next.push(...keyValuesIn([cd]));
    }
    pending = next;
  }
  return [...found.values()];
}

/** Every `keys[].value` of every Reference inside the given JSON. */
function keyValuesIn(values: readonly unknown[]): string[] {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== "object" || value === null) return;
    const object = value as Record<string, unknown>;
    if (Array.isArray(object.keys) && typeof object.type === "string") {
      for (const key of object.keys)
        if (typeof (key as { value?: unknown })?.value === "string") found.add((key as { value: string }).value);
    }
    for (const item of Object.values(object)) visit(item);
  };
  values.forEach(visit);
  return [...found];
}
