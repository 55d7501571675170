import { type ChangeEvent, type ElementJson, type ElementScope, filterElement } from "@twinport/shared";

/**
 * An element event as a caller sees it who may read only part of the element (it lies on the way
 * to what their grant covers: `C` for a grant on `C.Ok`): the element with only the parts a GET of
 * it would show them (engine/access/element-filter.ts), so a value change carries the ValueOnly
 * that GET …/$value answers them. Events without the element (deletions, a large payload left
 * out) are as they are: identifiers, or an `href` the GET then filters.
 */
export function partOfElementEvent(event: ChangeEvent, scope: ElementScope): ChangeEvent {
  if (event.payload === undefined || event.payloadOmitted || event.idShortPath === undefined) return event;
  const part = filterElement(event.payload as ElementJson, scope, event.idShortPath);
  const { payload: _whole, ...rest } = event;
  return part === undefined ? rest : { ...rest, payload: part };
}
