import { ABSTRACT_CLASSES } from "../metamodel-schema.ts";

/**
 * The few facts AAS XML adds on top of the JSON shape in metamodel-schema.ts (whose property order
 * is the metamodel's, which is also the XSD's sequence order: aas-core generates both from one
 * meta-model, and aas-xml.test.ts checks the table against aas-core's own writing order).
 */

export const AAS_XML_NAMESPACE = "https://admin-shell.io/aas/3/0";

/** xsi:schemaLocation and friends are legal on any element and carry no model content. */
export const XSI_NAMESPACE = "http://www.w3.org/2001/XMLSchema-instance";

/**
 * The only primitive properties that are not strings in AAS JSON (xs:boolean in the XSD); every
 * other primitive, numbers included, is a string in both serializations.
 */
const BOOLEAN_PROPERTIES: Record<string, readonly string[]> = {
  SubmodelElementList: ["orderRelevant"],
  LevelType: ["min", "nom", "typ", "max"],
};

export function isBooleanProperty(className: string, property: string): boolean {
  return BOOLEAN_PROPERTIES[className]?.includes(property) ?? false;
}

/** XML names a class instance after the class, lowerCamelCase: `SubmodelElementList` → `submodelElementList`. */
export function elementNameOf(className: string): string {
  return className[0].toLowerCase() + className.slice(1);
}

/**
 * The concrete class an item element names, where the declared class is `classRef` (possibly
 * abstract, like SubmodelElement); undefined when the element does not name an allowed class.
 */
export function classOfElement(classRef: string, elementName: string): string | undefined {
  const candidates = ABSTRACT_CLASSES[classRef] ?? [classRef];
  return candidates.find((className) => elementNameOf(className) === elementName);
}

export function isAbstractClass(classRef: string): boolean {
  return ABSTRACT_CLASSES[classRef] !== undefined;
}

/** The element names allowed where `classRef` is expected, for error messages. */
export function allowedElementNames(classRef: string): string[] {
  return (ABSTRACT_CLASSES[classRef] ?? [classRef]).map(elementNameOf);
}

/**
 * Namespaces of AAS XML before v3.0. Spec §9.2: "Models compliant with v2.x or v3.0 release
 * candidates cannot be loaded unchanged; they must be converted", so these get a message that
 * says so instead of a bare "wrong namespace".
 */
export function legacyNamespaceVersion(namespace: string): string | undefined {
  const match = /^https?:\/\/(?:www\.)?admin-shell\.io\/aas\/(\d+)\/(\d+)(?:\/(RC\d+))?\/?$/i.exec(namespace);
  if (match === null) return undefined;
  const [, major, minor, candidate] = match;
  if (candidate !== undefined) return `v${major}.${minor} release candidate ${candidate.toUpperCase()}`;
  if (Number(major) < 3) return `v${major}.${minor}`;
  return undefined;
}
