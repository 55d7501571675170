import { formatIdShortPath, isIdShort, KEY_TYPE_NAMES, type PathSegment } from "../aas/index.ts";

/**
 * The keys of asset-connection provider maps: AAS references in the text form of AAS Part 1
 * §7.2.3 (spec §9.3), `(Submodel)urn:x, (SubmodelElementCollection)C, (Property)P`, parsed the way
 * FA³ST v1.3.0 parses them (docs/reference/faaast-asset-connections.md §1.3) so FA³ST files load unchanged:
 * an optional `[ModelRef]` prefix is dropped, keys are split on exactly ", " (nothing trimmed), a
 * key's type is the text between "(" and the first ")", its value is the rest, verbatim.
 *
 * Where FA³ST accepts a key that can never match an element (a first key other than the Submodel,
 * a single key, "(Submodel)x,(Property)p" without the space, which is ONE key), we refuse it at
 * start-up instead of silently never using the provider.
 */

export interface ReferenceKey {
  /** The AAS KeyTypes name in its canonical spelling, e.g. "SubmodelElementCollection". */
  type: string;
  value: string;
}

/** Where a provider's element lives: what the API's submodel id and idShortPath would be. */
export interface ProviderTarget {
  submodelId: string;
  idShortPath: string;
  keys: ReferenceKey[];
}

const KEY_TYPES = KEY_TYPE_NAMES;

/** FA³ST's enum name of a key type: "SubmodelElementList" → "SUBMODEL_ELEMENT_LIST". */
function enumName(text: string): string {
  return text.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

const KEY_TYPE_BY_ENUM = new Map<string, string>(KEY_TYPES.map((type) => [enumName(type), type]));

/** The pre-v1.0 FA³ST form carried an id type in brackets: `(Submodel)[IRI]urn:x,(Property)[ID_SHORT]p`. */
const OLD_ID_TYPE = /^\[(IRI|IRDI|ID_SHORT|IdShort|CUSTOM|Custom|FRAGMENT_ID|FragmentId|Iri|Irdi)\]/;

export class ReferenceTextError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReferenceTextError";
  }
}

const FORM_HINT =
  'write (Type)value keys separated by a comma and one space, e.g. "(Submodel)urn:example:sm, (Property)Temperature"';

/** The keys of a reference written as text; throws ReferenceTextError with a sentence saying what is wrong. */
export function parseReferenceText(text: string): ReferenceKey[] {
  let rest = text;
  if (rest.startsWith("[")) {
    const close = rest.indexOf("]");
    if (close < 0) throw new ReferenceTextError(`the "[" of the reference type is not closed; ${FORM_HINT}`);
    rest = rest.slice(close + 1);
  }
  if (rest === "") throw new ReferenceTextError(`it has no keys; ${FORM_HINT}`);
  return rest.split(", ").map((part, index) => {
    if (!part.startsWith("("))
      throw new ReferenceTextError(`key ${index + 1} ("${part}") does not start with "(Type)"; ${FORM_HINT}`);
    const close = part.indexOf(")");
    if (close < 0)
      throw new ReferenceTextError(`key ${index + 1} ("${part}") misses the ")" after its type; ${FORM_HINT}`);
    const typeText = part.slice(1, close);
    const value = part.slice(close + 1);
    if (OLD_ID_TYPE.test(value)) {
      throw new ReferenceTextError(
        `it uses the old bracketed id-type form ("${part}", from FA³ST before v1.0), which is no longer read; ${FORM_HINT}`,
      );
    }
    const type = KEY_TYPE_BY_ENUM.get(enumName(typeText));
    if (type === undefined)
      throw new ReferenceTextError(
        `key ${index + 1} has the unknown type "${typeText}". Known: ${KEY_TYPES.join(", ")}`,
      );
    return { type, value };
  });
}

/**
 * The element a provider key names. FA³ST matches a key to an element by key count and key values
 * only, never by key type, so the path is built from the values: a value of digits is a list index
 * (an idShort cannot start with a digit), anything else an idShort.
 */
export function providerTarget(text: string): ProviderTarget {
  const keys = parseReferenceText(text);
  const [first, ...elementKeys] = keys;
  if (first!.type !== "Submodel") {
    throw new ReferenceTextError(
      `it starts with a ${first!.type} key; a provider key starts with the (Submodel) key and then names the element's path, e.g. "(Submodel)urn:example:sm, (Property)Temperature"`,
    );
  }
  if (first!.value === "") throw new ReferenceTextError("the submodel id is empty");
  if (elementKeys.length === 0) {
    const noSpace = /,\(/.test(first!.value)
      ? ' (keys are separated by ", " with a space: without it the text is one key)'
      : "";
    throw new ReferenceTextError(`it names a submodel, not an element${noSpace}; ${FORM_HINT}`);
  }
  const segments: PathSegment[] = [];
  let previous = first!;
  for (const key of elementKeys) {
    if (/^\d+$/.test(key.value)) {
      if (segments.length === 0)
        throw new ReferenceTextError(`"${key.value}" cannot be a top-level element: only list items are numbered`);
      if (key.value.length > 1 && key.value.startsWith("0"))
        throw new ReferenceTextError(`the list index "${key.value}" has a leading zero`);
      segments.push({ index: Number(key.value) });
    } else if (previous.type === "SubmodelElementList") {
      throw new ReferenceTextError(
        `the key after a SubmodelElementList must be an item index (0, 1, …), not "${key.value}"`,
      );
    } else if (isIdShort(key.value)) {
      segments.push({ idShort: key.value });
    } else {
      throw new ReferenceTextError(
        `"${key.value}" is not an idShort (letters, digits, "_" and "-", starting with a letter)`,
      );
    }
    previous = key;
  }
  return { submodelId: first!.value, idShortPath: formatIdShortPath(segments), keys };
}
