import { echoed } from "../../aas/index.ts";
import { CommandError } from "../../contracts/index.ts";
import type { IdentifiableKind } from "./repository.ts";

/**
 * The cursors of repository pages, the same in every repository: base64url of the position a page
 * ended at. A cursor is checked against the form this list gives, so a truncated, made-up or another
 * list's cursor is a 400 instead of a page that silently starts elsewhere or looks like the end.
 * - Identifiable lists: `<kind>:<ordinal>` (the creation ordinal of the last item). The kind ties a
 *   cursor to its list: ordinals are counted per kind, so another list's would name some other place.
 *   Filters of the same list share them (ADR 0035).
 * - Children of an element: the last child's sort key, 16 hex digits of its order key, \x01, its path.
 */
export function identifiableCursor(kind: IdentifiableKind, ordinal: number): string {
  return Buffer.from(`${kind}:${ordinal}`, "utf8").toString("base64url");
}

/** The ordinal an identifiable list's cursor stands after; a 400 for anything this list did not give. */
export function ordinalOfCursor(kind: IdentifiableKind, cursor: string): number {
  const match = /^([a-z-]+):(0|[1-9][0-9]{0,15})$/.exec(textOf(cursor));
  const ordinal = match === null ? Number.NaN : Number(match[2]);
  if (match === null || match[1] !== kind || !Number.isSafeInteger(ordinal)) throw invalid(cursor);
  return ordinal;
}

export function childCursor(sortKey: string): string {
  return Buffer.from(sortKey, "utf8").toString("base64url");
}

/** The sort key a children page's cursor stands after; a 400 for anything not of that form. */
export function sortKeyOfCursor(cursor: string): string {
  const text = textOf(cursor);
  if (!/^[0-9a-f]{16}\x01./s.test(text)) throw invalid(cursor);
  return text;
}

function textOf(cursor: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid(cursor);
  return Buffer.from(cursor, "base64url").toString("utf8");
}

function invalid(cursor: string): CommandError {
  return new CommandError(
    "bad-request",
    `Invalid cursor '${echoed(cursor)}': not a cursor this list gave (it may be cut short, or another list's)`,
  );
}
