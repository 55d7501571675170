import { AasError } from "../aas-error.ts";
import { CLASSES, type PropertyShape } from "../metamodel-schema.ts";
import { isPlainObject } from "../plain-object.ts";
import {
  AAS_XML_NAMESPACE,
  classOfElement,
  elementNameOf,
  isAbstractClass,
  isBooleanProperty,
} from "./aas-xml-names.ts";
import { escapeText } from "./xml-text.ts";

/**
 * AAS JSON (the jsonable environment aas-core's toJsonable produces) → AAS XML v3.0.
 *
 * Elements follow the XSD sequences (the property order of metamodel-schema.ts). Lists become a
 * wrapper element with one child per item named after the item's class; a property whose type is
 * abstract (OperationVariable.value, EmbeddedDataSpecification.dataSpecificationContent) wraps one
 * element named after the concrete class. `modelType` has no element: the element name carries it.
 *
 * Complex elements are indented; text elements are written inline, so no whitespace is ever added
 * to a value (parseAasXml keeps values verbatim, leading and trailing spaces included).
 */
export function writeAasXml(environment: Record<string, unknown>): string {
  const out: string[] = ['<?xml version="1.0" encoding="utf-8"?>\n'];
  writeObject(out, "environment", environment, "Environment", "", 0, ` xmlns="${AAS_XML_NAMESPACE}"`);
  out.push("\n");
  return out.join("");
}

/** The environment's XML declaration and opening tag, for a writer that streams the lists itself. */
export const AAS_XML_ENVIRONMENT_OPEN = `<?xml version="1.0" encoding="utf-8"?>\n<environment xmlns="${AAS_XML_NAMESPACE}">`;

/**
 * One item of an Environment list (`assetAdministrationShells`, `submodels`,
 * `conceptDescriptions`) as writeAasXml writes it inside that list: a streaming writer joins these
 * into the same text without holding the whole environment (engine/serialization).
 */
export function writeAasXmlEnvironmentItem(list: string, item: unknown, index: number): string {
  const shape = CLASSES.Environment.properties[list];
  if (shape === undefined || shape === "primitive" || !("many" in shape))
    throw new AasError("deserialization", `Not an Environment list: ${list}`);
  const out: string[] = [];
  writeConcrete(out, shape.many, item, `${list}[${index}]`, 2);
  return out.join("");
}

function writeObject(
  out: string[],
  elementName: string,
  value: unknown,
  className: string,
  path: string,
  depth: number,
  attributes = "",
): void {
  if (!isPlainObject(value))
    throw new AasError("deserialization", `Expected a ${className} object at ${path || "the root"}`, pathOption(path));
  const schema = CLASSES[className];
  for (const key of Object.keys(value)) {
    if (key === "modelType" || Object.hasOwn(schema.properties, key)) continue;
    const keyPath = join(path, key);
    throw new AasError("unknown-property", `Unknown property "${key}" in ${className} at ${keyPath}`, {
      path: keyPath,
    });
  }
  const start = out.push(`<${elementName}${attributes}>`);
  for (const [property, shape] of Object.entries(schema.properties)) {
    const item = value[property];
    if (item === undefined || item === null) continue;
    writeProperty(out, className, property, shape, item, join(path, property), depth + 1);
  }
  if (out.length === start) out[start - 1] = `<${elementName}${attributes}/>`;
  else out.push("\n" + "  ".repeat(depth), `</${elementName}>`);
}

function writeProperty(
  out: string[],
  className: string,
  property: string,
  shape: PropertyShape,
  value: unknown,
  path: string,
  depth: number,
): void {
  const indent = "\n" + "  ".repeat(depth);
  out.push(indent);
  if (shape === "primitive") {
    out.push(`<${property}>${primitiveText(className, property, value, path)}</${property}>`);
    return;
  }
  if ("one" in shape) {
    if (!isAbstractClass(shape.one)) return writeObject(out, property, value, shape.one, path, depth);
    out.push(`<${property}>`, indent, "  ");
    writeConcrete(out, shape.one, value, path, depth + 1);
    out.push(indent, `</${property}>`);
    return;
  }
  if (!Array.isArray(value)) throw new AasError("deserialization", `Expected a list at ${path}`, { path });
  if (value.length === 0) {
    out.push(`<${property}/>`);
    return;
  }
  out.push(`<${property}>`);
  value.forEach((item, index) => {
    out.push(indent, "  ");
    writeConcrete(out, shape.many, item, `${path}[${index}]`, depth + 1);
  });
  out.push(indent, `</${property}>`);
}

/** An instance where `classRef` (maybe abstract) is declared: its element names its concrete class. */
function writeConcrete(out: string[], classRef: string, value: unknown, path: string, depth: number): void {
  let className = classRef;
  if (isAbstractClass(classRef)) {
    const modelType = isPlainObject(value) ? value.modelType : undefined;
    const concrete = typeof modelType === "string" ? classOfElement(classRef, elementNameOf(modelType)) : undefined;
    if (concrete === undefined || concrete !== modelType) {
      throw new AasError("deserialization", `Expected a ${classRef} with a known modelType at ${path}`, { path });
    }
    className = concrete;
  }
  writeObject(out, elementNameOf(className), value, className, path, depth);
}

function primitiveText(className: string, property: string, value: unknown, path: string): string {
  if (isBooleanProperty(className, property)) {
    if (typeof value !== "boolean") throw new AasError("deserialization", `Expected a boolean at ${path}`, { path });
    return String(value);
  }
  if (typeof value !== "string") throw new AasError("deserialization", `Expected a string at ${path}`, { path });
  return escapeText(value, path);
}

function join(path: string, property: string): string {
  return path === "" ? property : `${path}.${property}`;
}

function pathOption(path: string): { path?: string } {
  return path === "" ? {} : { path };
}
