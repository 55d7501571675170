import { AasError } from "./aas-error.ts";
import { echoed } from "./echoed-value.ts";

/**
 * idShortPath: `idShort ( "." idShort | "[" index "]" )*` (API v3.0.2 grammar), e.g. `a.b[2].c`
 * or `L[0][1]`. Inside a list only the index is used, never the child's idShort.
 *
 * The idShort pattern allows "-" (as the brief's metamodel pattern does) although aas-core 3.0's
 * AASd-002 check does not: a path is only looked up here, so being permissive costs nothing
 * (an element with such an idShort cannot exist and the lookup answers "not found").
 */

export type PathSegment = { idShort: string } | { index: number };

const ID_SHORT = /^[A-Za-z][A-Za-z0-9_-]*$/;
const ID_SHORT_PREFIX = /[A-Za-z][A-Za-z0-9_-]*/y;
const INDEX = /^(0|[1-9][0-9]*)$/;

export function isIdShort(text: string): boolean {
  return ID_SHORT.test(text);
}

export function parseIdShortPath(text: string): PathSegment[] {
  if (text.length === 0) throw invalid(text, "it is empty");
  const segments: PathSegment[] = [];
  let at = 0;
  while (at < text.length) {
    if (segments.length > 0) {
      const separator = text[at];
      if (separator === "[") {
        const close = text.indexOf("]", at + 1);
        if (close < 0) throw invalid(text, `"[" at position ${at} is not closed`);
        segments.push({ index: parseIndex(text, text.slice(at + 1, close), at) });
        at = close + 1;
        continue;
      }
      if (separator !== ".") throw invalid(text, `expected "." or "[" at position ${at}`);
      at += 1;
    }
    ID_SHORT_PREFIX.lastIndex = at;
    const match = ID_SHORT_PREFIX.exec(text);
    if (match === null) {
      const what = segments.length === 0 ? "it must start with an idShort" : `expected an idShort at position ${at}`;
      throw invalid(text, what);
    }
    segments.push({ idShort: match[0] });
    at += match[0].length;
  }
  return segments;
}

export function formatIdShortPath(segments: PathSegment[]): string {
  let text = "";
  for (const segment of segments) {
    if ("index" in segment) {
      if (text === "") throw new AasError("id-short-path", "An idShortPath cannot start with a list index");
      if (!Number.isSafeInteger(segment.index) || segment.index < 0) {
        throw new AasError("id-short-path", `Invalid list index ${segment.index}`);
      }
      text += `[${segment.index}]`;
    } else {
      if (!isIdShort(segment.idShort))
        throw new AasError("id-short-path", `Invalid idShort "${echoed(segment.idShort)}"`);
      text += text === "" ? segment.idShort : `.${segment.idShort}`;
    }
  }
  if (text === "") throw new AasError("id-short-path", "An idShortPath needs at least one segment");
  return text;
}

/**
 * The parent path and last segment of a valid idShortPath, without parsing it whole: idShorts can
 * hold neither "." nor "[", so the last of those two characters is the split point. Used on every
 * record when assembling, hence the shortcut.
 *   "a.b[2]" → { parentPath: "a.b", segment: "[2]", index: 2 };  "a" → { parentPath: "", segment: "a" }
 */
export function splitParent(path: string): { parentPath: string; segment: string; index?: number } {
  if (path.length === 0) throw new AasError("id-short-path", "The empty path has no parent");
  const dot = path.lastIndexOf(".");
  const bracket = path.lastIndexOf("[");
  if (bracket > dot) {
    const segment = path.slice(bracket);
    return { parentPath: path.slice(0, bracket), segment, index: Number(segment.slice(1, -1)) };
  }
  if (dot >= 0) return { parentPath: path.slice(0, dot), segment: path.slice(dot + 1) };
  return { parentPath: "", segment: path };
}

/** The parent part of a valid idShortPath ("" for a top-level element). */
export function parentPathOf(path: string): string {
  const cut = Math.max(path.lastIndexOf("."), path.lastIndexOf("["));
  return cut < 0 ? "" : path.slice(0, cut);
}

/** "", {idShort:"x"} → "x";  "l", {index:3} → "l[3]";  "a", {idShort:"b"} → "a.b" */
export function childPath(parentPath: string, child: { idShort?: string; index?: number }): string {
  if (child.index !== undefined) {
    if (parentPath === "") throw new AasError("id-short-path", "Top-level elements have no list index");
    return `${parentPath}[${child.index}]`;
  }
  if (child.idShort === undefined) throw new AasError("id-short-path", "A child needs an idShort or a list index");
  return parentPath === "" ? child.idShort : `${parentPath}.${child.idShort}`;
}

/** Whether `path` lies strictly below `ancestor` ("" is the submodel root, above everything). */
export function isBelow(path: string, ancestor: string): boolean {
  if (ancestor === "") return path !== "";
  if (path.length <= ancestor.length || !path.startsWith(ancestor)) return false;
  const next = path[ancestor.length];
  return next === "." || next === "[";
}

function parseIndex(path: string, digits: string, at: number): number {
  if (!INDEX.test(digits)) {
    throw invalid(
      path,
      `"[${digits}]" at position ${at} is not an index (0 or a positive integer without leading zeros)`,
    );
  }
  const index = Number(digits);
  if (!Number.isSafeInteger(index)) throw invalid(path, `index ${digits} is too large`);
  return index;
}

function invalid(path: string, why: string): AasError {
  return new AasError("id-short-path", `Invalid idShortPath "${echoed(path)}": ${why}`, { path });
}
