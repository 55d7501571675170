import { type ChangeEvent, type ElementJson, isBelow, type ProviderTarget } from "@twinport/shared";
import { targetKey } from "./element-sync.ts";
import { ASSET_ORIGIN } from "./model-port.ts";

/** Element changes that are written through to the asset (FA³ST: PATCH $value, PUT/PATCH and POST of elements). */
export const ELEMENT_CHANGES = new Set(["element.value-changed", "element.updated", "element.created"]);
/**
 * Whole-submodel writes (PUT or PATCH of the submodel, its `$value`): each bound element is read and
 * handed on as after an element write, so a changed value goes to the asset. FA³ST reads the asset
 * again instead, which silently undid such writes (an element without a writer still is read again).
 */
export const SUBMODEL_CHANGES = new Set(["submodel.created", "submodel.updated"]);

/** The event changed the target's element: itself, a container holding it, or its whole submodel. */
export function changes(event: ChangeEvent, target: ProviderTarget): boolean {
  if (event.id !== target.submodelId) return false;
  if (SUBMODEL_CHANGES.has(event.kind)) return true;
  const path = event.idShortPath;
  if (!ELEMENT_CHANGES.has(event.kind) || path === undefined) return false;
  return target.idShortPath === path || isBelow(target.idShortPath, path);
}

/** The element as the event carries it, when it is exactly the target's and not left out for size. */
export function elementIn(event: ChangeEvent, target: ProviderTarget): ElementJson | undefined {
  const exact =
    ELEMENT_CHANGES.has(event.kind) &&
    event.idShortPath === target.idShortPath &&
    event.payload !== undefined &&
    !event.payloadOmitted;
  return exact ? (event.payload as ElementJson) : undefined;
}

/**
 * What a new lease holder still has to write to the asset, from the event log after the saved
 * forwarded position (forwarded-position.ts): per written element the last change made through an
 * endpoint. Only the last one, because that is all the asset would keep of several (ElementSync
 * writes only the newest waiting value as well); none when the asset's own value came into the
 * model after it, because then model and asset agreed again and writing the older client value
 * would undo a newer asset value. Fed a page of the log at a time, so a long log is never held.
 */
export class CatchUpWrites {
  private readonly last = new Map<string, { target: ProviderTarget; event: ChangeEvent }>();

  constructor(private readonly targets: readonly ProviderTarget[]) {}

  add(events: readonly ChangeEvent[]): void {
    for (const event of events) {
      for (const target of this.targets) {
        if (!changes(event, target)) continue;
        if (event.origin === ASSET_ORIGIN) this.last.delete(targetKey(target));
        else this.last.set(targetKey(target), { target, event });
      }
    }
  }

  /** In the order of their events, so writes to the asset go out in commit order. */
  writes(): { target: ProviderTarget; event: ChangeEvent }[] {
    return [...this.last.values()].sort((a, b) => a.event.seq - b.event.seq);
  }
}
