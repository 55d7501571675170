import { isLosslessNumber } from "lossless-json";
import * as aas from "./aas-core.cts";
import { AasError } from "./aas-error.ts";
import { withArticle } from "./article.ts";
import { isBase64BinaryLexical } from "./binary-lexical.ts";
import { type ElementJson, getChildren } from "./element-tree.ts";
import { type ReadableClassName, readModel } from "./model-io.ts";
import { isPlainObject } from "./plain-object.ts";
import { hasValueOnly } from "./value-only.ts";
import { guardedCheck } from "./verification-guard.ts";
import { valueJsonKind, valueJsonToLexical } from "./xsd-values.ts";

/**
 * PATCH …/$value (API v3.0.2 Annex C; decisions in docs/architecture.md §8): the body has the shape GET
 * answers, and only values change.
 * - Only existing children are updated: nothing is created or deleted. An unknown key, a list
 *   with more items than exist, or a value of the wrong type → AasError("value", path).
 * - `null` clears a value (Property.value, Range bounds, File/Blob value, ReferenceElement value,
 *   MultiLanguageProperty texts, Entity globalAssetId/specificAssetIds) but never deletes an
 *   element; where the metamodel requires the value (Relationship first/second, BasicEventElement
 *   observed, File/Blob contentType, Entity entityType), null is an error.
 * - All or nothing: the input element is never modified; the result is a new object.
 * - Numbers and booleans become lexical strings valid for the target valueType; LosslessNumbers
 *   (parseJsonLossless) keep every digit.
 * - Input forms accepted besides GET's: MultiLanguageProperty as one object {"de": …, "en": …};
 *   Entity statements / ARE annotations as an array of one-member objects (v3.0.1 OAS) and ARE
 *   "annotation" (v3.0.1 text); Entity specificAssetIds items as {"<name>": "<value>"}.
 * - By default the result is verified with aas-core (cross-attribute constraints such as AASd-014
 *   on Entity, language tags); a violation is AasError("value") with the details.
 */

export interface ApplyValueOnlyOptions {
  /** idShortPath of the element, used as the prefix of error paths (default: its idShort). */
  path?: string;
  /** Verify the patched element with aas-core (default true). */
  verify?: boolean;
}

export function applyValueOnly(element: ElementJson, value: unknown, options: ApplyValueOnlyOptions = {}): ElementJson {
  const basePath = options.path ?? (typeof element.idShort === "string" ? element.idShort : "");
  const result = structuredClone(element);
  applyTo(result, value, basePath);
  if (options.verify !== false) {
    try {
      readModel(result, "SubmodelElement", { validate: true });
    } catch (error) {
      if (!(error instanceof AasError)) throw error;
      throw new AasError("value", `The patched element is not valid: ${error.message}`, {
        path: basePath,
        details: error.details,
      });
    }
  }
  return result;
}

// Field names of the object-shaped ValueOnly forms (containers list their children instead).
const FIELDS: Record<string, readonly string[]> = {
  Range: ["min", "max"],
  File: ["contentType", "value"],
  Blob: ["contentType", "value"],
  ReferenceElement: ["type", "keys", "referredSemanticId"],
  RelationshipElement: ["first", "second"],
  AnnotatedRelationshipElement: ["first", "second", "annotations", "annotation"],
  Entity: ["statements", "entityType", "globalAssetId", "specificAssetIds"],
  BasicEventElement: ["observed"],
};

/**
 * The bare ValueOnly value of a single-element PATCH body, which may come wrapped as
 * {"<idShort>": v} (what GET answers) or bare. Rule: a one-member object whose key equals the
 * element's idShort is the wrapped form, unless the key is also a field of the bare form (a child
 * idShort of a collection, "min" of a Range, …) and the member's value does not itself look like a
 * bare form (an object whose keys are all such fields). For a MultiLanguageProperty, a string
 * member is the bare {"<lang>": text} form.
 */
export function unwrapValueOnly(element: ElementJson, body: unknown): unknown {
  if (!isPlainObject(body)) return body;
  const keys = Object.keys(body);
  if (keys.length !== 1 || keys[0] !== element.idShort) return body;
  const inner = body[keys[0]];
  if (element.modelType === "MultiLanguageProperty") return typeof inner === "string" ? body : inner;
  const fields =
    element.modelType === "SubmodelElementCollection"
      ? getChildren(element).map((child) => child.idShort)
      : (FIELDS[String(element.modelType)] ?? []);
  if (!fields.includes(keys[0])) return inner;
  const looksBare =
    isPlainObject(inner) && Object.keys(inner).length > 0 && Object.keys(inner).every((key) => fields.includes(key));
  return looksBare ? inner : body;
}

function applyTo(element: ElementJson, value: unknown, path: string): void {
  switch (element.modelType) {
    case "Property":
      return applyProperty(element, value, path);
    case "MultiLanguageProperty":
      return applyMultiLanguage(element, value, path);
    case "Range":
      if (value === null) {
        delete element.min;
        delete element.max;
        return;
      }
      for (const [key, bound] of fieldsOf(element, value, path)) setTyped(element, key, bound, join(path, key));
      return;
    case "File":
    case "Blob":
      if (value === null) {
        delete element.value;
        return;
      }
      for (const [key, item] of fieldsOf(element, value, path)) {
        if (key === "contentType") element.contentType = requireString(item, join(path, "contentType"));
        else if (item === null) delete element.value;
        else
          element.value =
            element.modelType === "Blob"
              ? requireBase64(item, join(path, "value"))
              : requireString(item, join(path, "value"));
      }
      return;
    case "ReferenceElement":
      if (value === null) delete element.value;
      else element.value = readValue(value, "Reference", path);
      return;
    case "RelationshipElement":
    case "AnnotatedRelationshipElement":
      for (const [key, item] of fieldsOf(element, value, path)) {
        if (key === "first" || key === "second") element[key] = readValue(item, "Reference", join(path, key));
        else applyNamed(getChildren(element), item, join(path, key), true);
      }
      return;
    case "Entity":
      return applyEntity(element, value, path);
    case "BasicEventElement":
      for (const [, item] of fieldsOf(element, value, path))
        element.observed = readValue(item, "Reference", join(path, "observed"));
      return;
    case "SubmodelElementCollection":
      return applyNamed(getChildren(element), value, path, false);
    case "SubmodelElementList": {
      if (!Array.isArray(value)) throw fail(path, "expected an array (a SubmodelElementList's value)");
      const items = getChildren(element);
      // Items without a ValueOnly form (a list of Operations or Capabilities) are left out of GET's
      // array, which is then empty: PATCHed back, it names them all (they have nothing to set).
      if (items.length > 0 && !items.some(hasValueOnly)) {
        if (value.length === 0) return;
        throw fail(path, `the list's items are ${String(items[0]!.modelType)}s, which have no value: send []`);
      }
      // An array is replaced whole (merge patch, spec §4.4.2), and a PATCH adds and removes no
      // elements: so it names every item. A shorter array used to patch a prefix and keep the rest.
      if (value.length !== items.length) {
        throw fail(
          path,
          `the list has ${items.length} item(s) and an array is replaced whole: send all ${items.length} (got ${value.length}); a PATCH cannot add or remove items`,
        );
      }
      value.forEach((item, index) => applyTo(items[index], item, `${path}[${index}]`));
      return;
    }
    default:
      throw fail(path, `${withArticle(String(element.modelType))} has no value (no ValueOnly form)`);
  }
}

function applyProperty(element: ElementJson, value: unknown, path: string): void {
  if (value === null) delete element.value;
  else setTyped(element, "value", value, path);
}

function setTyped(element: ElementJson, key: string, value: unknown, path: string): void {
  if (value === null) {
    delete element[key];
    return;
  }
  const lexical = valueJsonToLexical(value, element.valueType);
  if (lexical === undefined) {
    const kind = valueJsonKind(element.valueType);
    // The right JSON type with a wrong value (99999999999 for an xs:int) is not a type mistake, and
    // nor is a string: every type takes its lexical form as one ("12" for an xs:int), so
    // "2147483648" is out of range, not of the wrong JSON type.
    const reason =
      jsonKindOf(value) === kind || typeof value === "string"
        ? "out of the type's range, or not of its form"
        : `expected a JSON ${kind}`;
    throw fail(path, `${describe(value)} is not a valid ${String(element.valueType)} value (${reason})`);
  }
  element[key] = lexical;
}

function applyMultiLanguage(element: ElementJson, value: unknown, path: string): void {
  if (value === null) {
    delete element.value;
    return;
  }
  const objects = Array.isArray(value) ? value : [value];
  const texts: { language: string; text: string }[] = [];
  objects.forEach((object, index) => {
    const itemPath = Array.isArray(value) ? `${path}[${index}]` : path;
    if (!isPlainObject(object)) throw fail(itemPath, 'expected an object {"<language>": "<text>"}');
    const members = Object.keys(object);
    // The normal form's LangString: its keys would otherwise be read as the languages "language"
    // and "text" (both are well-formed tags), storing the text under a language of "text".
    if (members.length === 2 && "language" in object && "text" in object)
      throw fail(
        itemPath,
        `a ValueOnly text is {"<language>": "<text>"}, e.g. {${JSON.stringify(String(object.language))}: …}, not {"language", "text"}`,
      );
    // Each array item is one text (the OAS's one-member objects); several languages in one object
    // are the single-object form, accepted only in place of the array.
    if (Array.isArray(value) && members.length !== 1)
      throw fail(itemPath, `expected one {"<language>": "<text>"} per array item, got ${members.length} members`);
    for (const [language, text] of Object.entries(object)) {
      texts.push({ language, text: requireString(text, join(itemPath, language)) });
    }
  });
  if (texts.length === 0) delete element.value;
  else element.value = texts;
}

function applyEntity(element: ElementJson, value: unknown, path: string): void {
  for (const [key, item] of fieldsOf(element, value, path)) {
    const itemPath = join(path, key);
    if (key === "statements") {
      applyNamed(getChildren(element), item, itemPath, true);
    } else if (key === "entityType") {
      if (item !== "CoManagedEntity" && item !== "SelfManagedEntity") {
        throw fail(itemPath, `expected "CoManagedEntity" or "SelfManagedEntity", got ${describe(item)}`);
      }
      element.entityType = item;
    } else if (item === null) {
      delete element[key];
    } else if (key === "globalAssetId") {
      element.globalAssetId = requireString(item, itemPath);
    } else {
      if (!Array.isArray(item)) throw fail(itemPath, "expected an array of SpecificAssetIds");
      element.specificAssetIds = item.map((id, index) =>
        readValue(specificAssetIdJson(id), "SpecificAssetId", `${itemPath}[${index}]`),
      );
    }
  }
}

// {"<name>": "<value>"} (the OAS description's "key attribute as property name") → full JSON.
function specificAssetIdJson(item: unknown): unknown {
  if (!isPlainObject(item) || "name" in item) return item;
  const entries = Object.entries(item);
  return entries.length === 1 ? { name: entries[0][0], value: entries[0][1] } : item;
}

/**
 * Children addressed by idShort: {"<idShort>": v, …}; for Entity statements and ARE annotations
 * also [{"<idShort>": v}, …], the v3.0.1 OAS shape.
 */
function applyNamed(children: ElementJson[], value: unknown, path: string, arrayForm: boolean): void {
  if (Array.isArray(value) && !arrayForm) throw fail(path, 'expected an object {"<idShort>": <value>, …}');
  const objects = Array.isArray(value) ? value : [value];
  objects.forEach((object, index) => {
    const objectPath = Array.isArray(value) ? `${path}[${index}]` : path;
    if (!isPlainObject(object)) throw fail(objectPath, 'expected an object {"<idShort>": <value>, …}');
    for (const [idShort, item] of Object.entries(object)) {
      const childPath = join(objectPath, idShort);
      const child = children.find((candidate) => candidate.idShort === idShort);
      if (child === undefined)
        // Also an Operation argument's message (operation-arguments.ts), not only a PATCH's.
        throw fail(
          childPath,
          `there is no element "${idShort}" here (a ValueOnly value sets existing elements, it cannot add any)`,
        );
      applyTo(child, item, childPath);
    }
  });
}

/** The members of an object-shaped value, checked against the kind's field names. */
function fieldsOf(element: ElementJson, value: unknown, path: string): [string, unknown][] {
  const fields = FIELDS[String(element.modelType)];
  if (!isPlainObject(value)) throw fail(path, `expected an object with ${fields.join(", ")}`);
  const entries = Object.entries(value);
  for (const [key] of entries) {
    if (!fields.includes(key))
      throw fail(
        join(path, key),
        `unknown key "${key}" for a ${String(element.modelType)} (expected ${fields.join(", ")})`,
      );
  }
  return entries;
}

function readValue(value: unknown, className: ReadableClassName, path: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw fail(path, `expected a ${className} object`);
  try {
    return readModel(value, className, { validate: true }).jsonable;
  } catch (error) {
    if (!(error instanceof AasError)) throw error;
    const inner = error.path ? join(path, error.path) : path;
    throw new AasError("value", `${inner}: ${error.message}`, { path: inner, details: error.details });
  }
}

function requireString(value: unknown, path: string): string {
  if (typeof value !== "string") throw fail(path, `expected a string, got ${describe(value)}`);
  return value;
}

function requireBase64(value: unknown, path: string): string {
  const text = requireString(value, path);
  // One pass at any length: aas-core's expression overflowed the stack on a Blob of ~10 MB.
  if (!isBase64BinaryLexical(text)) throw fail(path, "expected base64-encoded bytes");
  return text;
}

function jsonKindOf(value: unknown): string {
  if (isLosslessNumber(value) || typeof value === "number") return "number";
  return typeof value;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (isLosslessNumber(value)) return value.toString();
  if (typeof value === "object") return "an object";
  return JSON.stringify(value);
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function fail(path: string, message: string): AasError {
  return new AasError("value", path === "" ? message : `${path}: ${message}`, { path });
}
