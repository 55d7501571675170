import { SaxesParser } from "saxes";
import { escapeAttribute } from "../xml/xml-text.ts";
import { extensionOf, partKey } from "./part-names.ts";

/**
 * The two small XML vocabularies of Open Packaging Conventions that an AASX needs:
 * `[Content_Types].xml` and `*.rels`. They are read with the same rule as AAS XML: no DOCTYPE.
 */

export const CONTENT_TYPES_NAMESPACE = "http://schemas.openxmlformats.org/package/2006/content-types";
export const RELATIONSHIPS_NAMESPACE = "http://schemas.openxmlformats.org/package/2006/relationships";
export const RELATIONSHIPS_CONTENT_TYPE = "application/vnd.openxmlformats-package.relationships+xml";

export interface Relationship {
  type: string;
  target: string;
  id: string;
  external: boolean;
}

export interface ContentTypes {
  /** The content type of a part: its Override, else the Default of its extension. */
  of(partName: string): string | undefined;
}

export function readContentTypes(text: string): ContentTypes {
  const defaults = new Map<string, string>();
  const overrides = new Map<string, string>();
  for (const element of readElements(text, "[Content_Types].xml")) {
    if (element.name === "Default" && element.attributes.Extension && element.attributes.ContentType) {
      defaults.set(element.attributes.Extension.toLowerCase(), element.attributes.ContentType);
    } else if (element.name === "Override" && element.attributes.PartName && element.attributes.ContentType) {
      overrides.set(partKey(decodeOrKeep(element.attributes.PartName)), element.attributes.ContentType);
    }
  }
  return { of: (partName) => overrides.get(partKey(partName)) ?? defaults.get(extensionOf(partName)) };
}

export function readRelationships(text: string, partName: string): Relationship[] {
  return readElements(text, partName)
    .filter((element) => element.name === "Relationship" && element.attributes.Type && element.attributes.Target)
    .map(({ attributes }) => ({
      type: attributes.Type.trim(),
      target: attributes.Target,
      id: attributes.Id ?? "",
      external: attributes.TargetMode === "External",
    }));
}

export function writeContentTypes(defaults: Record<string, string>, overrides: Record<string, string>): string {
  const lines = [`<?xml version="1.0" encoding="utf-8"?>`, `<Types xmlns="${CONTENT_TYPES_NAMESPACE}">`];
  for (const [extension, contentType] of Object.entries(defaults)) {
    lines.push(`  <Default Extension="${attr(extension)}" ContentType="${attr(contentType)}"/>`);
  }
  for (const [partName, contentType] of Object.entries(overrides)) {
    lines.push(`  <Override PartName="${attr(partName)}" ContentType="${attr(contentType)}"/>`);
  }
  lines.push("</Types>", "");
  return lines.join("\n");
}

/** Targets are written as absolute URIs ("/aasx/…"), which every reader resolves the same way. */
export function writeRelationships(relationships: readonly Omit<Relationship, "external">[]): string {
  const lines = [`<?xml version="1.0" encoding="utf-8"?>`, `<Relationships xmlns="${RELATIONSHIPS_NAMESPACE}">`];
  for (const { type, target, id } of relationships) {
    lines.push(`  <Relationship Type="${attr(type)}" Target="${attr(target)}" Id="${attr(id)}"/>`);
  }
  lines.push("</Relationships>", "");
  return lines.join("\n");
}

interface PlainElement {
  name: string;
  attributes: Record<string, string>;
}

/** Every element with its attributes, by local name (the namespaces of these files are not in doubt). */
function readElements(text: string, partName: string): PlainElement[] {
  const elements: PlainElement[] = [];
  const parser = new SaxesParser({ xmlns: true, position: true, fileName: partName });
  parser.on("doctype", () => {
    throw new Error(`${partName}:${parser.line}:${parser.column + 1}: a DOCTYPE (DTD) is not allowed`);
  });
  parser.on("opentag", (tag) => {
    const attributes: Record<string, string> = {};
    for (const attribute of Object.values(tag.attributes)) attributes[attribute.local] = attribute.value;
    elements.push({ name: tag.local, attributes });
  });
  parser.write(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).close();
  return elements;
}

function attr(value: string): string {
  return escapeAttribute(value, "an OPC attribute");
}

function decodeOrKeep(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
