import type { IdentifiableKind } from "./ports/index.ts";

/**
 * Names of write targets for the commit runner's per-target queue. An element write queues behind
 * other writes to the same element (a list-item delete behind writes to its list); writes to
 * different elements, even in one submodel, run concurrently.
 */
export function elementTarget(submodelId: string, path: string): string {
  return `element\u0000${submodelId}\u0000${path}`;
}

export function identifiableTarget(kind: IdentifiableKind, id: string): string {
  return `${kind}\u0000${id}`;
}
