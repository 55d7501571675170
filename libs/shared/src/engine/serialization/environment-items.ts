import { CommandError } from "../../contracts/index.ts";
import { loadAllElements } from "../element-io.ts";
import type { EngineContext } from "../engine-context.ts";
import { notFound } from "../identifiables.ts";
import type { IdentifiableKind, StoredIdentifiable } from "../ports/index.ts";
import { joinSubmodel } from "../submodel-json.ts";

export interface EnvironmentSelection {
  aasIds?: readonly string[];
  submodelIds?: readonly string[];
  includeConceptDescriptions: boolean;
}

type Json = Record<string, unknown>;

/** The three lists of an Environment, each read from the store only while it is consumed. */
export interface EnvironmentItems {
  shells: AsyncIterable<Json>;
  submodels: AsyncIterable<Json>;
  /** Read after shells and submodels were consumed: the referenced ones depend on them. */
  conceptDescriptions: AsyncIterable<Json>;
}

/** Identifiables per list read: one bounded store command, never the whole repository. */
export const IDENTIFIABLE_PAGE = 500;
/** Submodels whose elements are read at once: enough to hide round trips, few enough to stay small. */
export const SUBMODELS_IN_FLIGHT = 4;

/**
 * What GenerateSerializationByIds serializes (AAS API digest §j):
 * - no ids at all: the whole repository (and every concept description, unless excluded);
 * - otherwise exactly the shells and submodels named (an unknown id is a 404); a shell's submodels
 *   are NOT added implicitly: ask for them with submodelIds;
 * - with includeConceptDescriptions, the concept descriptions that the included shells and
 *   submodels reference anywhere (semanticId, valueId, isCaseOf, data specifications, …), and
 *   the ones those reference in turn.
 *
 * Named ids are resolved (and refused: 404, 403) before anything is returned, so a failure is an
 * error reply and never a half-written body. Everything else is read as it is consumed: pages of
 * IDENTIFIABLE_PAGE identifiables, and each submodel's elements in one read of its own (a submodel
 * is consistent at its own revision; docs/adr/0034), at most SUBMODELS_IN_FLIGHT at a time.
 */
export async function environmentItems(ctx: EngineContext, selection: EnvironmentSelection): Promise<EnvironmentItems> {
  const aasIds = unique(selection.aasIds);
  const submodelIds = unique(selection.submodelIds);
  // With access rules: what the caller may read. A submodel is serialized only whole, so a caller
  // who may read only some of its elements does not get it here (docs/security.md "Rules").
  const access = ctx.access;
  const shellOk = (shell: Json) => access === undefined || access.readableShell(shell.id as string);
  const submodelOk = (submodel: Json) => access === undefined || access.submodelReadScope(submodel)?.whole === true;
  const cdOk = (cd: Json) => access === undefined || access.readableConceptDescription(cd.id as string);
  if (aasIds.length === 0 && submodelIds.length === 0) {
    return {
      shells: filtered(listAll(ctx, "shell"), shellOk),
      submodels: withElements(ctx, filtered(listAll(ctx, "submodel"), submodelOk)),
      conceptDescriptions: selection.includeConceptDescriptions
        ? filtered(listAll(ctx, "concept-description"), cdOk)
        : fromArray([]),
    };
  }
  // Named ids are asked for one by one: one the caller may not read refuses the request.
  const readable = (item: Json, ok: (item: Json) => boolean, kind: string): Json => {
    if (!ok(item)) throw new CommandError("forbidden", `Not allowed: READ on ${kind} '${String(item.id)}'`);
    return item;
  };
  const shells = (await resolveIds(ctx, "shell", aasIds)).map((stored) =>
    readable(JSON.parse(stored.json) as Json, shellOk, "shell"),
  );
  const submodelMetas = (await resolveIds(ctx, "submodel", submodelIds)).map((stored) =>
    readable(JSON.parse(stored.json) as Json, submodelOk, "submodel"),
  );
  // The concept descriptions follow the references of what was actually written: collected on the way.
  const referenced = new Set<string>();
  const noting = async function* (items: AsyncIterable<Json>): AsyncIterable<Json> {
    for await (const item of items) {
      if (selection.includeConceptDescriptions) for (const value of keyValuesIn([item])) referenced.add(value);
      yield item;
    }
  };
  return {
    shells: noting(fromArray(shells)),
    submodels: noting(withElements(ctx, fromArray(submodelMetas))),
    conceptDescriptions: selection.includeConceptDescriptions
      ? filtered(referencedConceptDescriptions(ctx, referenced), cdOk)
      : fromArray([]),
  };
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
    if (parts.length < 2) throw missing(ctx, kind, id);
    for (const part of parts) {
      const one = await ctx.repository.getIdentifiable(kind, part);
      if (!one) throw missing(ctx, kind, part);
      found.set(one.id, one);
    }
  }
  return [...found.values()];
}

/**
 * An id that names nothing: 404 only to a caller who could read it if it existed. To anyone else
 * it is the same 403 as an existing one they may not read, so the answer does not tell which ids
 * exist (docs/security.md "Answers").
 */
function missing(ctx: EngineContext, kind: IdentifiableKind, id: string): CommandError {
  const access = ctx.access;
  if (access !== undefined) {
    const mayRead =
      kind === "shell"
        ? access.readableShell(id)
        : kind === "concept-description"
          ? access.readableConceptDescription(id)
          : access.submodelReadScope({ id })?.whole === true;
    if (!mayRead) return new CommandError("forbidden", `Not allowed: READ on ${kind} '${id}'`);
  }
  return notFound(kind, id);
}

function unique(ids: readonly string[] | undefined): string[] {
  return [...new Set(ids ?? [])];
}

async function* fromArray(items: readonly Json[]): AsyncIterable<Json> {
  yield* items;
}

async function* filtered(items: AsyncIterable<Json>, ok: (item: Json) => boolean): AsyncIterable<Json> {
  for await (const item of items) if (ok(item)) yield item;
}

async function* listAll(ctx: EngineContext, kind: IdentifiableKind): AsyncIterable<Json> {
  let cursor: string | undefined;
  do {
    const page = await ctx.repository.listIdentifiables(kind, { cursor, limit: IDENTIFIABLE_PAGE });
    for (const stored of page.items) yield JSON.parse(stored.json) as Json;
    cursor = page.cursor;
  } while (cursor !== undefined);
}

/**
 * Each submodel joined with its elements, in order, with at most SUBMODELS_IN_FLIGHT element reads
 * running: the next read starts when the oldest finished submodel is taken, so a slow consumer
 * (backpressure from the HTTP response) stops the reads too.
 */
async function* withElements(ctx: EngineContext, metas: AsyncIterable<Json>): AsyncIterable<Json> {
  const inFlight: Promise<Json>[] = [];
  const read = (meta: Json) =>
    loadAllElements(ctx.repository, meta.id as string).then((elements) => joinSubmodel(meta, elements));
  try {
    for await (const meta of metas) {
      inFlight.push(read(meta));
      if (inFlight.length >= SUBMODELS_IN_FLIGHT) yield await inFlight.shift()!;
    }
    while (inFlight.length > 0) yield await inFlight.shift()!;
  } finally {
    // Abandoned (the client went away, or one read failed): the other reads' failures are nobody's.
    for (const pending of inFlight) pending.catch(() => {});
  }
}

/** Concept descriptions reachable through Reference keys, transitively (a CD may reference others). */
async function* referencedConceptDescriptions(ctx: EngineContext, roots: ReadonlySet<string>): AsyncIterable<Json> {
  const checked = new Set<string>();
  let pending = [...roots];
  while (pending.length > 0) {
    const next: string[] = [];
    for (const value of pending) {
      if (checked.has(value)) continue;
      checked.add(value);
      const stored = await ctx.repository.getIdentifiable("concept-description", value);
      if (!stored) continue;
      const cd = JSON.parse(stored.json) as Json;
      yield cd;
      next.push(...keyValuesIn([cd]));
    }
    pending = next;
  }
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
