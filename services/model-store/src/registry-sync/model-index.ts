import { type ChangeEvent, isRawJson, type Paged, type StoreClient } from "@twinport/shared";
import type { ShellSource, SubmodelSource } from "./descriptors.ts";

/** Commands of the registry sync read the store like any endpoint, named for its logs. */
const ORIGIN = "registry-sync";
const PAGE_LIMIT = 500;

function json<T>(value: unknown): T {
  return (isRawJson(value) ? JSON.parse(value.rawJson) : value) as T;
}

/** A submodel without its elements: the descriptor needs none of them, the index stays small. */
function submodelHead(submodel: Record<string, unknown>): SubmodelSource {
  const { submodelElements: _elements, ...head } = submodel;
  return head as unknown as SubmodelSource;
}

async function readAll<T>(
  store: StoreClient,
  type: "GetAllAssetAdministrationShells" | "GetAllSubmodels",
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const reply = await store.execute({
      type,
      params: {
        page: { limit: PAGE_LIMIT, ...(cursor ? { cursor } : {}) },
        ...(type === "GetAllSubmodels" ? { modifiers: { content: "metadata" as const } } : {}),
      },
      origin: ORIGIN,
    });
    if (!reply.ok) throw new Error(`${type}: ${reply.error.message}`);
    const page = json<Paged<unknown>>(reply.value);
    for (const item of page.items) items.push(json<T>(item));
    cursor = page.cursor;
  } while (cursor);
  return items;
}

/**
 * The shells and submodel heads this server holds, as far as descriptors need them: filled from a
 * snapshot of the store, then kept current by change events. Deletes come from the event's id,
 * never from a lookup (the element is gone by then: FA³ST's bug).
 */
export class ModelIndex {
  readonly shells = new Map<string, ShellSource>();
  readonly submodels = new Map<string, SubmodelSource>();

  constructor(private readonly store: StoreClient) {}

  /** Replaces the whole index with the store's content; returns the ids that disappeared. */
  async load(): Promise<{ goneShells: string[]; goneSubmodels: string[] }> {
    const [shells, submodels] = await Promise.all([
      readAll<ShellSource>(this.store, "GetAllAssetAdministrationShells"),
      readAll<Record<string, unknown>>(this.store, "GetAllSubmodels"),
    ]);
    const goneShells = [...this.shells.keys()];
    const goneSubmodels = [...this.submodels.keys()];
    this.shells.clear();
    this.submodels.clear();
    for (const shell of shells) this.shells.set(shell.id, shell);
    for (const submodel of submodels) this.submodels.set(String(submodel.id), submodelHead(submodel));
    return {
      goneShells: goneShells.filter((id) => !this.shells.has(id)),
      goneSubmodels: goneSubmodels.filter((id) => !this.submodels.has(id)),
    };
  }

  /**
   * Applies one change event. Returns what changed for descriptors, or undefined for events that
   * do not touch any (elements, concept descriptions, operations).
   */
  async apply(event: ChangeEvent): Promise<{ entity: "shell" | "submodel"; id: string } | undefined> {
    const [entity, change] = event.kind.split(".") as [string, string];
    if (entity !== "shell" && entity !== "submodel") return undefined;
    if (change === "deleted") {
      (entity === "shell" ? this.shells : this.submodels).delete(event.id);
      return { entity, id: event.id };
    }
    if (change !== "created" && change !== "updated") return undefined;
    let payload = event.payloadOmitted ? undefined : (event.payload as Record<string, unknown> | undefined);
    if (!payload || typeof payload !== "object") {
      const reply =
        entity === "shell"
          ? await this.store.execute({
              type: "GetAssetAdministrationShellById",
              params: { aasId: event.id },
              origin: ORIGIN,
            })
          : await this.store.execute({
              type: "GetSubmodelById",
              params: { submodelId: event.id, modifiers: { content: "metadata" } },
              origin: ORIGIN,
            });
      if (!reply.ok) {
        // Gone again already: its delete event follows and removes the descriptor.
        if (reply.error.code === "not-found") return undefined;
        throw new Error(`reading ${entity} '${event.id}': ${reply.error.message}`);
      }
      payload = json<Record<string, unknown>>(reply.value);
    }
    if (entity === "shell") this.shells.set(event.id, payload as unknown as ShellSource);
    else this.submodels.set(event.id, submodelHead(payload));
    return { entity, id: event.id };
  }
}
