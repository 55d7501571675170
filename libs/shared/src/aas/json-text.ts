import { isLosslessNumber, LosslessNumber, parse, stringify } from "lossless-json";
import { AasError } from "./aas-error.ts";
import { refuseDeepJsonText, refuseProtoKeys } from "./json-keys.ts";

/**
 * JSON text in and out. Full AAS JSON carries every value as a string, so plain JSON.parse is
 * right for it; ValueOnly bodies carry xs:decimal / xs:long / xs:unsignedLong as JSON numbers,
 * whose digits JSON.parse would round, so those go through lossless-json.
 */

export function parseJsonText(text: string): unknown {
  // The depth first, on the text: JSON.parse builds the whole document before anything could
  // count its levels, and 60 MB of "[[[…" held the event loop 11–15 s and took 3 GB to do so.
  refuseDeepJsonText(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw syntaxError(text, error);
  }
  refuseProtoKeys(value, text);
  return value;
}

/**
 * Numbers become lossless-json `LosslessNumber`s that keep their exact digits. `foreign`: the text
 * is an asset's payload, not AAS input; it is only queried (JSONPath), never merged into objects,
 * so a "__proto__" member in it stays data (lossless-json stores it as an own property).
 */
export function parseJsonLossless(text: string, options: { foreign?: boolean } = {}): unknown {
  const scalar = plainScalar(text);
  if (scalar !== NOT_PLAIN) return scalar;
  // Before parsing: lossless-json's parser recurses, so a deep document would overflow its stack.
  refuseDeepJsonText(text);
  let value: unknown;
  if (text.length >= NATIVE_FROM_CHARS) {
    try {
      value = JSON.parse(text, keptDigits);
    } catch (error) {
      throw syntaxError(text, error);
    }
  } else {
    try {
      value = parse(text);
    } catch (error) {
      throw new AasError("syntax", `Invalid JSON: ${(error as Error).message}`);
    }
  }
  if (options.foreign !== true) refuseProtoKeys(value, text);
  return value;
}

/**
 * From this length on, a text is parsed by JSON.parse with `keptDigits`, not by lossless-json:
 * lossless-json builds a string character by character, and a Blob's ValueOnly body of 22 MB took
 * it ~2 s, mostly garbage collection, the event loop held. The values are the same (every number a
 * LosslessNumber of its own digits); a member named twice keeps its last value here, where
 * lossless-json refuses the text, as JSON.parse does for every full-JSON body.
 */
const NATIVE_FROM_CHARS = 64 * 1024;

/** JSON.parse's reviver giving each number as lossless-json does: its source digits (Node ≥ 21). */
function keptDigits(this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
  return typeof value === "number" && context?.source !== undefined ? new LosslessNumber(context.source) : value;
}

/** A JSON number, the whole text (no whitespace around it). */
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
/** A JSON string without escapes or control characters: its value is the text between the quotes. */
const PLAIN_JSON_STRING = /^"[^"\\\u0000-\u001f]*"$/;
const NOT_PLAIN = Symbol("not a plain scalar");

/**
 * The value of a JSON text that is one number, plain string or literal, exactly as lossless-json
 * parses it, without its parser: a `$value` PATCH of a Property and an asset's reading are such
 * texts, and lossless-json spent ~4 µs on each (issue 12, docs/adr/0039). Anything else (whitespace,
 * escapes, objects, arrays, errors) takes the full parser.
 */
function plainScalar(text: string): unknown {
  const first = text.charCodeAt(0);
  if (first === 0x22) return PLAIN_JSON_STRING.test(text) ? text.slice(1, -1) : NOT_PLAIN;
  if (first === 0x2d || (first >= 0x30 && first <= 0x39))
    return JSON_NUMBER.test(text) ? new LosslessNumber(text) : NOT_PLAIN;
  if (text === "true") return true;
  if (text === "false") return false;
  if (text === "null") return null;
  return NOT_PLAIN;
}

/** `LosslessNumber`s are written as their exact digits; everything else as JSON.stringify would. */
export function stringifyLossless(value: unknown): string {
  // A scalar (an asset's reading, mostly) without lossless-json's walk: the same text.
  if (typeof value === "string" || typeof value === "boolean" || value === null) return JSON.stringify(value);
  if (isLosslessNumber(value)) return value.value;
  const text = stringify(value);
  if (text === undefined) throw new TypeError("stringifyLossless: the value has no JSON form");
  return text;
}

// Node 20's JSON.parse messages do not always name a position ("Unexpected token '}', ... is not
// valid JSON"); lossless-json's always do, so a failing text is parsed once more for the message.
function syntaxError(text: string, nativeError: unknown): AasError {
  let message = (nativeError as Error).message;
  if (!/position \d+/.test(message)) {
    try {
      parse(text);
    } catch (losslessError) {
      message = (losslessError as Error).message;
    }
  }
  return new AasError("syntax", `Invalid JSON: ${message}`);
}
