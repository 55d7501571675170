import {
  type ChangeEvent,
  CommandError,
  type EventEntity,
  echoed,
  parseIdShortPath,
  parseReferenceFilter,
  type ReferenceFilter,
} from "@twinport/shared";
import { badRequest } from "../http/api-error.ts";
import { base64UrlQuery } from "../http/encoded-query.ts";
import type { GatewayContext } from "../http/gateway-env.ts";
import { singleQuery } from "../http/query.ts";

export const EVENT_ENTITIES: readonly EventEntity[] = [
  "shell",
  "submodel",
  "element",
  "concept-description",
  "operation",
];

/**
 * What one stream asks for (docs/events.md): every given filter must match.
 * - `kinds`: entity kinds (the part of the event name before the dot);
 * - `id`: the identifier of the shell, submodel or concept description concerned;
 * - `semanticId`: the semanticId of the submodel concerned, or for an element or operation event
 *   that of the element or of its submodel (either matches);
 * - `idShortPath`: a prefix on whole path segments ("A.B" matches "A.B", "A.B.C", "A.B[0]", not
 *   "A.BC"); events without a path (shells, submodels, concept descriptions) do not match it.
 */
export interface EventFilter {
  kinds?: ReadonlySet<EventEntity>;
  id?: string;
  semanticId?: ReferenceFilter;
  idShortPath?: string;
}

export function readEventFilter(c: GatewayContext): EventFilter {
  const filter: EventFilter = {};
  const kinds = singleQuery(c, "kinds");
  if (kinds !== undefined) {
    const names = kinds.split(",").map((name) => name.trim());
    for (const name of names)
      if (!(EVENT_ENTITIES as readonly string[]).includes(name))
        throw badRequest(
          `Query parameter "kinds": unknown kind "${echoed(name)}"; known: ${EVENT_ENTITIES.join(", ")}`,
        );
    filter.kinds = new Set(names as EventEntity[]);
  }
  const id = base64UrlQuery(c, "id");
  if (id !== undefined) filter.id = id;
  const semanticId = base64UrlQuery(c, "semanticId");
  if (semanticId !== undefined) {
    try {
      filter.semanticId = parseReferenceFilter("semanticId", semanticId);
    } catch (error) {
      if (error instanceof CommandError) throw badRequest(error.message);
      throw error;
    }
  }
  const idShortPath = singleQuery(c, "idShortPath");
  if (idShortPath !== undefined) {
    if (idShortPath === "") throw badRequest('Query parameter "idShortPath" is empty');
    // A prefix no element can have (`L[01]`, `A..B`) would stream nothing, silently: refused as the
    // element paths refuse it.
    try {
      parseIdShortPath(idShortPath);
    } catch (error) {
      throw badRequest(`Query parameter "idShortPath": ${(error as Error).message}`);
    }
    filter.idShortPath = idShortPath;
  }
  return filter;
}

/** The entity of an event: "element" for "element.value-changed". */
export function entityOf(event: ChangeEvent): EventEntity {
  return event.kind.slice(0, event.kind.indexOf(".")) as EventEntity;
}

/** The filters that need nothing but the event itself (semanticId is checked by the caller). */
export function matchesPlainFilters(event: ChangeEvent, filter: EventFilter): boolean {
  if (filter.kinds && !filter.kinds.has(entityOf(event))) return false;
  if (filter.id !== undefined && event.id !== filter.id) return false;
  if (filter.idShortPath !== undefined) {
    const path = event.idShortPath;
    if (path === undefined || !pathStartsWith(path, filter.idShortPath)) return false;
  }
  return true;
}

function pathStartsWith(path: string, prefix: string): boolean {
  if (!path.startsWith(prefix)) return false;
  const next = path.charAt(prefix.length);
  return next === "" || next === "." || next === "[";
}
