import { AasError } from "./aas-error.ts";
import { documentTooDeep, maxDocumentDepth } from "./nesting-limit.ts";

/**
 * The nesting check on the text, so it can run before a recursive parser (lossless-json) too:
 * brackets outside strings, counted. A text shorter than twice the limit cannot be that deep.
 */
export function refuseDeepJsonText(text: string): void {
  const limit = maxDocumentDepth();
  if (text.length <= 2 * limit) return;
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === QUOTE) index = stringEnd(text, index);
    else if (char === OPEN_BRACE || char === OPEN_BRACKET) {
      if (++depth > limit) throw documentTooDeep("JSON document");
    } else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) depth--;
  }
}

/**
 * The index of the quote closing the string that opens at `open` (the text's length if none does).
 * Found with indexOf, not character by character: a Blob's value is one string of tens of megabytes,
 * and walking it in JavaScript took ~170 ms per 40 MB with the event loop blocked. A quote closes the
 * string when an even number of backslashes stands before it (each pair is one escaped backslash).
 */
function stringEnd(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote !== -1) {
    let backslashes = 0;
    while (quote - 1 - backslashes > open && text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

/** JSON's structural characters as char codes, shared by the scanners over JSON text. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;

/**
 * `__proto__` is the one member name that plain property assignment (`target[key] = value`,
 * Object.assign, a merge patch) turns into a prototype change instead of data. No AAS input has a
 * member of that name (it is neither a metamodel property, nor an idShort, nor a language tag), so a
 * document that carries one anywhere is refused, before any code copies or recurses over it.
 * `constructor` and `prototype` are valid idShorts: they stay data, and readers look them up as own
 * properties only. Iterative: a hostile document may be nested far deeper than the call stack
 * allows. (Also for configuration files, which have no nesting limit.)
 */
export function refuseProtoKeys(value: unknown, text: string): void {
  if (!text.includes("__proto__") && !text.includes("\\u")) return;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item !== "object" || item === null) continue;
    if (Array.isArray(item)) {
      for (const element of item) pending.push(element);
      continue;
    }
    if (Object.hasOwn(item, "__proto__")) throw protoKey();
    for (const key of Object.keys(item)) pending.push((item as Record<string, unknown>)[key]);
  }
}

function protoKey(): AasError {
  return new AasError(
    "unknown-property",
    `The member name "__proto__" is not allowed (it would set an object's prototype)`,
  );
}
