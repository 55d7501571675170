/**
 * JSONPath for asset payloads: FA³ST's `query` and `queries` (written for Jayway; the part of it
 * asset configurations use — `$`, names, indexes, slices, `*`, `..`, filters like
 * `[?(@.id == 'a' && @.v > 1)]` — is also RFC 9535 JSONPath).
 *
 * Parsing and evaluation are json-p3's, an RFC 9535 implementation tested against the JSONPath
 * Compliance Test Suite: it parses filters into an expression tree and evaluates that tree, so a
 * query (from a configuration file or an AID submodel) can never run code. What this file adds is
 * the adapter for documents parsed with lossless numbers: json-p3 would see a LosslessNumber as an
 * object, so it queries a copy in which numbers are plain numbers (for comparisons in filters) and
 * each match is then taken from the original document by its location, keeping every digit.
 */

import { isPlainObject } from "@twinport/shared";
import { JSONPathEnvironment, type JSONPathQuery, type JSONValue } from "json-p3";
import { isLosslessNumber } from "lossless-json";

export class JsonPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonPathError";
  }
}

// Strict RFC 9535: no non-standard syntax whose meaning a later standard could change.
const environment = new JSONPathEnvironment();

export interface JsonPath {
  readonly text: string;
  /** Every match, in document order. */
  evaluate(document: unknown): unknown[];
}

/** Parses once (a configuration error shows at start-up, not at the first payload). */
export function compileJsonPath(text: string): JsonPath {
  let query: JSONPathQuery;
  try {
    // Surrounding blanks are a configuration file's, not the query's (RFC 9535 allows none there).
    query = environment.compile(text.trim());
  } catch (error) {
    throw new JsonPathError(`Invalid JSONPath "${text}": ${(error as Error).message}`);
  }
  return {
    text,
    evaluate(document) {
      let locations: (string | number)[][];
      try {
        locations = query.query(withPlainNumbers(document) as JSONValue).locations();
      } catch (error) {
        throw new JsonPathError(`JSONPath "${text}" failed: ${(error as Error).message}`);
      }
      return locations.map((location) =>
        location.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], document),
      );
    },
  };
}

/** The one value a query selects; none or several is an error (FA³ST's rule). */
export function queryOne(document: unknown, path: JsonPath): unknown {
  const found = path.evaluate(document);
  if (found.length !== 1)
    throw new JsonPathError(
      `JSONPath "${path.text}" matched ${found.length === 0 ? "nothing" : `${found.length} values`} (exactly one is needed)`,
    );
  return found[0];
}

/** A copy with every LosslessNumber as a number; the same shape, so locations carry over. */
function withPlainNumbers(value: unknown): unknown {
  if (isLosslessNumber(value)) return Number(value.value);
  if (Array.isArray(value)) return value.map(withPlainNumbers);
  // fromEntries defines members, so a "__proto__" key stays a member and never becomes a prototype.
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, withPlainNumbers(member)]));
  return value;
}
