import { AasError } from "./aas-error.ts";
import { echoed } from "./echoed-value.ts";

/**
 * How deep submodel elements may nest (core.maxNestingDepth): an element directly in a submodel
 * is at depth 1, its children at 2, and so on (through collections, lists, entities, annotated
 * relationships and operation variables alike). Every reader and writer of the model recurses
 * over this nesting (aas-core's jsonization and verification, the XML writer, the OPC UA address
 * space), and each failed with a stack overflow somewhere above 1,000 levels; a limit checked at
 * every input keeps all of them far from it, and a client gets a 400 naming the limit instead of
 * a 500.
 *
 * Process-wide rather than passed along: one process serves one configuration, and the limit
 * must hold in every parser the engine calls (JSON, ValueOnly, XML, AASX), several layers below
 * the command that knows the configuration. createEngine sets it.
 */
export const DEFAULT_MAX_NESTING_DEPTH = 64;

let maxNestingDepth = DEFAULT_MAX_NESTING_DEPTH;

export function setMaxNestingDepth(depth: number): void {
  if (!Number.isInteger(depth) || depth < 1)
    throw new RangeError(`maxNestingDepth must be an integer >= 1, got ${depth}`);
  maxNestingDepth = depth;
}

export function getMaxNestingDepth(): number {
  return maxNestingDepth;
}

/**
 * The bound on raw document nesting (JSON objects and arrays, XML elements) checked right after
 * parsing, before anything recurses over the document. An element level costs at most three
 * document levels (an operation variable: inputVariables[] → OperationVariable → value), and an
 * environment adds a few above the first element; anything deeper cannot be a valid model.
 */
export function maxDocumentDepth(): number {
  return 3 * maxNestingDepth + 16;
}

export function documentTooDeep(what: string): AasError {
  return new AasError(
    "syntax",
    `The ${what} nests deeper than ${maxDocumentDepth()} levels, more than elements nested ${maxNestingDepth} deep need (core.maxNestingDepth)`,
  );
}

export function elementsTooDeep(depth: number, path?: string): AasError {
  // The path of a deep element is long by definition: its start says where.
  const shown = path === undefined ? path : echoed(path);
  const where = shown === undefined || shown === "" ? "" : ` at ${shown}`;
  return new AasError(
    "syntax",
    `Submodel elements are nested ${depth} deep${where}, more than the limit of ${maxNestingDepth} (core.maxNestingDepth)`,
  );
}
