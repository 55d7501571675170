import { type ChangeEvent, isRawJson, type StoreClient, SYSTEM } from "@twinport/shared";

/** What the event stream needs to know of a submodel: its semanticId (a Reference, AAS JSON). */
export interface SubmodelSemantics {
  semanticId: unknown;
}

/** Submodels remembered at most; a forgotten one is read again when an event names it. */
const MAX_KNOWN = 10_000;

/**
 * The semanticIds of submodels, for the stream's `semanticId` filter and the access rules that
 * grant by semanticId: an element event names only its submodel's id. Learned from the submodel
 * events that pass by (created/updated carry the submodel), otherwise read once from the store
 * (its metadata, no elements) and kept; a deletion forgets it.
 */
export class SubmodelSemanticsCatalog {
  private readonly known = new Map<string, Promise<SubmodelSemantics | undefined>>();

  constructor(private readonly store: StoreClient) {}

  /** Called for every event in seq order, before any stream looks at it. */
  learn(event: ChangeEvent): void {
    if (!event.kind.startsWith("submodel.")) return;
    if (event.kind === "submodel.deleted") this.known.delete(event.id);
    else if (event.payload !== undefined && !event.payloadOmitted) {
      this.remember(event.id, Promise.resolve({ semanticId: (event.payload as { semanticId?: unknown }).semanticId }));
    } else this.known.delete(event.id);
  }

  semanticsOf(submodelId: string): Promise<SubmodelSemantics | undefined> {
    const known = this.known.get(submodelId);
    if (known) return known;
    const reading = this.read(submodelId);
    this.remember(submodelId, reading);
    // A failed read is not remembered: the next event asks again.
    reading.then(
      (found) => found === undefined && this.known.get(submodelId) === reading && this.known.delete(submodelId),
    );
    return reading;
  }

  private remember(id: string, semantics: Promise<SubmodelSemantics | undefined>): void {
    this.known.delete(id);
    this.known.set(id, semantics);
    if (this.known.size > MAX_KNOWN) this.known.delete(this.known.keys().next().value!);
  }

  private async read(submodelId: string): Promise<SubmodelSemantics | undefined> {
    try {
      const reply = await this.store.execute({
        type: "GetSubmodelById",
        params: { submodelId, modifiers: { content: "metadata" } },
        principal: SYSTEM,
      });
      if (!reply.ok) return undefined;
      const value = isRawJson(reply.value) ? JSON.parse(reply.value.rawJson) : reply.value;
      return { semanticId: (value as { semanticId?: unknown } | null)?.semanticId };
    } catch {
      return undefined;
    }
  }
}
