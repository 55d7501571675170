import type { ChangeEvent } from "@twinport/shared";
import { semanticIdOfEvent } from "./submodel-semantics.ts";

/** Submodels one stream remembers at most; a forgotten one goes back to the catalog. */
const MAX_PASSED = 10_000;

/**
 * The semanticIds one stream learned from the submodel events it passed, in seq order. Each such
 * event says which semanticId it left (semanticIdOfEvent), so the element events of that submodel
 * after it, up to its next submodel event, happened under that semanticId: known exactly, whatever
 * the gateway's catalog knows (after a gateway restart, nothing from before it). A jump of the
 * stream's position (a `reset`) skips events: then it forgets everything.
 */
export class PassedSubmodels {
  private readonly known = new Map<string, { semanticId: unknown }>();

  /** Every event the stream handles, in seq order, whether it is sent or not. */
  pass(event: ChangeEvent): void {
    // Element values only: the semanticId is the one already known (or not).
    if (!event.kind.startsWith("submodel.") || event.metadataKept) return;
    this.known.delete(event.id);
    const told = semanticIdOfEvent(event);
    // A deletion: nothing of that id follows before a creation, which says its own.
    if (told === undefined || event.kind === "submodel.deleted") return;
    this.known.set(event.id, told);
    if (this.known.size > MAX_PASSED) this.known.delete(this.known.keys().next().value!);
  }

  /** The semanticId the submodel has had since the last submodel event of it the stream passed. */
  semanticsOf(submodelId: string): { semanticId: unknown } | undefined {
    return this.known.get(submodelId);
  }

  forget(): void {
    this.known.clear();
  }
}
