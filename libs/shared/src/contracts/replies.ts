import type { ReplyError } from "./errors.ts";

/**
 * Every command answers with a Reply. `revision` is the revision of what was read or written
 * (the global sequence number of the last write that touched it); HTTP exposes it as the ETag.
 */
export type Reply<T> = ReplyOk<T> | ReplyFailure;

export interface ReplyOk<T> {
  ok: true;
  value: T;
  revision?: number;
  /** idShortPath of a created element (a list item's index is known only to the engine). */
  idShortPath?: string;
  /**
   * Writes: the sequence number of the last event the command committed. A gateway with a read
   * cache answers the write only once that event has reached it, so every other gateway has it
   * too (read-your-writes across gateways, docs/adr/0014).
   */
  seq?: number;
  /**
   * A read sent with `knownRevision` whose answer still has that revision: `value` is null and the
   * caller uses the answer it holds (docs/adr/0026).
   */
  unchanged?: true;
  /**
   * Reads answered through a partial READ scope: the name of that scope's view (ElementScope.view).
   * One revision then has several representations, one per view; HTTP puts the view into the ETag
   * (docs/adr/0058). Absent when the whole resource is answered.
   */
  view?: string;
  /**
   * An element addressed through a list index (`L[1]`, `L[1].Doc`): which element answered (its
   * orderKey, unique in its submodel and kept for its life, docs/adr/0020). Once an item before it
   * is deleted, the same path names another element, and items written by one commit share a
   * revision: HTTP puts it into the ETag, so a tag read before the shift matches no other element.
   */
  item?: string;
}

export interface ReplyFailure {
  ok: false;
  error: ReplyError;
}

/** A page of a list query: items plus the opaque cursor of the next page (absent on the last). */
export interface Paged<T> {
  items: T[];
  cursor?: string;
}

/**
 * A reply value that is already JSON text. Used where re-parsing would lose information (ValueOnly
 * numbers keep their exact lexical digits) or cost time (large reads): gateways send it as-is.
 */
export interface RawJson {
  rawJson: string;
}

export function isRawJson(value: unknown): value is RawJson {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as RawJson).rawJson === "string" &&
    Object.keys(value).length === 1
  );
}

/**
 * A reply value in the text form a caller asked for with `rawValue` (ExecuteOptions): the value as
 * one RawJson, or (`"items"`) a Paged value's items as one RawJson array with the cursor beside it.
 * What the NATS wire does in transit (bus/wire.ts), done in place for a direct call.
 */
export function toRawValue(value: unknown, mode: true | "items"): unknown {
  const text = (item: unknown) => (isRawJson(item) ? item.rawJson : (knownText(item) ?? JSON.stringify(item)));
  if (
    mode === "items" &&
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as Paged<unknown>).items)
  ) {
    const { items, cursor } = value as Paged<unknown>;
    const rawItems: RawJson = { rawJson: `[${items.map(text).join(",")}]` };
    return cursor === undefined ? { items: rawItems } : { items: rawItems, cursor };
  }
  if (isRawJson(value)) return value;
  const rawJson = knownText(value) ?? JSON.stringify(value);
  return rawJson === undefined ? value : ({ rawJson } satisfies RawJson);
}

/** JSON texts of frozen values that are answered again and again (rendered-submodels.ts). */
const texts = new WeakMap<object, string>();

/** Remembers `value`'s JSON text for toRawValue; the value must never change again (freeze it). */
export function rememberJsonText(value: object, text: string): void {
  texts.set(value, text);
}

function knownText(value: unknown): string | undefined {
  return typeof value === "object" && value !== null ? texts.get(value) : undefined;
}

/** A Paged value in the form `toRawValue(…, "items")` gives it. */
export function isRawItems(value: unknown): value is { items: RawJson; cursor?: string } {
  return typeof value === "object" && value !== null && isRawJson((value as { items?: unknown }).items);
}
