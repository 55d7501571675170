import { createHash } from "node:crypto";
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
 * - Children of an element: a tag of the list (submodel and parent path), \x02, the last child's sort
 *   key (16 hex digits of its order key, \x01, its path). Sort keys alone look alike in every list:
 *   another submodel's cursor, or another parent's, named a place in this one and skipped items.
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

export function childCursor(submodelId: string, parentPath: string, sortKey: string): string {
  return Buffer.from(`${listTag(submodelId, parentPath)}\x02${sortKey}`, "utf8").toString("base64url");
}

/** The sort key a children page's cursor stands after; a 400 for anything this list did not give. */
export function sortKeyOfCursor(submodelId: string, parentPath: string, cursor: string): string {
  const text = textOf(cursor);
  const tag = listTag(submodelId, parentPath);
  const sortKey = text.slice(tag.length + 1);
  if (!text.startsWith(`${tag}\x02`) || !/^[0-9a-f]{16}\x01./s.test(sortKey)) throw invalid(cursor);
  return sortKey;
}

/**
 * 48 bits of a digest of the list: tells lists apart (a guard against a client's mix-up, not a
 * secret), short enough to keep cursors short. A hash, not the ids themselves: those can be 2,000
 * characters each.
 */
export function listTag(...parts: string[]): string {
  return createHash("sha256").update(parts.join("\0")).digest("base64url").slice(0, 8);
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
