import { elementWeight } from "../address-space/element-count.ts";
import { identifiableNodeId } from "../address-space/node-ids.ts";
import type { Json } from "../address-space/spec-context.ts";
import { identifiableMapping, type MirrorTarget } from "./change-applier.ts";
import { StoreReadError } from "./store-reads.ts";

/**
 * Makes the nodes below identifiable `id` from the store's current state (ADR 0036). Runs between
 * two events (AddressSpaceSync.exclusive): events already applied are in what it reads, events
 * after it apply to the nodes it made, as they do after a snapshot.
 */
export async function materializeIdentifiable(target: MirrorTarget, id: string): Promise<void> {
  const kind = target.lazy.kindOf(id);
  if (kind === undefined || target.lazy.isMaterialized(id)) return;
  const { query, spec, parent } = identifiableMapping(target, kind, id);
  let json: unknown;
  try {
    json = await query();
  } catch (error) {
    // Deleted in the store and its event still on its way: it goes now, the event finds nothing.
    if (error instanceof StoreReadError && error.code === "not-found") {
      target.lazy.forget(id);
      target.builder.remove(identifiableNodeId(id));
      return;
    }
    throw error;
  }
  // Within maxMaterializedElements: the least recently used go first (ADR 0036 "Bounded").
  const elements = elementWeight(kind, json);
  const evicted = new Set(target.lazy.makeRoom(id, elements).filter((other) => evictIdentifiable(target, other)));
  if (evicted.size > 0) target.builder.forgetLinksOf(evicted);
  target.lazy.markMaterialized(id, true, elements);
  try {
    target.builder.apply(spec(json as Json), parent);
  } catch (error) {
    // Half-made nodes are patched by the next try; as in a snapshot, one that cannot be mapped is logged.
    target.lazy.markMaterialized(id, false);
    target.log(`opcua-gateway: ${id} could not be mapped: ${(error as Error).stack ?? error}`);
  }
}

/**
 * Deletes the nodes below the identifiable's own node; the own node stays, NodeIds are reused later.
 * False when it is no longer releasable (used or watched since the sweep looked) and no longer
 * beyond maxMaterializedElements either.
 */
export function releaseIdentifiable(target: MirrorTarget, id: string): boolean {
  if (!target.lazy.isReleasable(id) && !target.lazy.isOverBoundEvictable(id)) return false;
  deleteNodesBelow(target, id);
  return true;
}

/** Released to make room for another (not idle, but least recently used); false when watched or held. */
function evictIdentifiable(target: MirrorTarget, id: string): boolean {
  if (!target.lazy.isEvictable(id)) return false;
  deleteNodesBelow(target, id);
  return true;
}

function deleteNodesBelow(target: MirrorTarget, id: string): void {
  const node = target.builder.find(identifiableNodeId(id));
  if (node !== null) for (const child of target.builder.ownChildren(node)) target.builder.releaseBelow(child);
  target.lazy.markMaterialized(id, false);
}
