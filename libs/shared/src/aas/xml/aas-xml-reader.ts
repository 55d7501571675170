import { SaxesParser, type SaxesTagNS } from "saxes";
import { AasError, isAasError } from "../aas-error.ts";
import type { EnvironmentItemSink, EnvironmentSectionKey } from "../environment-stream.ts";
import { DEFAULT_MAX_IDENTIFIABLE_CHARS, identifiableTooLarge } from "../identifiable-size.ts";
import { CLASSES, type ClassRef } from "../metamodel-schema.ts";
import { documentTooDeep, maxDocumentDepth } from "../nesting-limit.ts";
import {
  AAS_XML_NAMESPACE,
  allowedElementNames,
  classOfElement,
  isAbstractClass,
  isBooleanProperty,
  legacyNamespaceVersion,
  XSI_NAMESPACE,
} from "./aas-xml-names.ts";

/**
 * AAS XML v3.0 → AAS JSON (the jsonable shape aas-core's toJsonable produces), ready for
 * `readAas(result, "Environment", …)`, which does the type checks and validation. This reader only
 * maps the structure: it knows which element is an object, a list or a text, and refuses what the
 * schema does not have.
 *
 * Security: a DOCTYPE is refused outright, so no DTD, entity declaration, external entity (XXE)
 * or entity expansion (billion laughs) ever reaches processing; saxes itself expands nothing but
 * the five predefined entities and character references.
 */
export function parseAasXml(text: string): Record<string, unknown> {
  const stream = createAasXmlReader(undefined);
  stream.write(text);
  return stream.end();
}

/**
 * The same reader fed in chunks. With `sink`, each shell, submodel and concept description is
 * handed out as soon as its closing tag is read and not kept (the environment's lists stay empty),
 * so a model of any size is read with memory for one identifiable. One whose text passes
 * `maxItemChars` (core.importMaxIdentifiableSize) is refused as soon as it does (checked every
 * WRITE_SLICE characters), before saxes or this reader holds all of it.
 */
export function createAasXmlReader(
  sink: EnvironmentItemSink | undefined,
  options: { maxItemChars?: number } = {},
): {
  write(chunk: string): void;
  end(): Record<string, unknown>;
} {
  const maxItemChars = options.maxItemChars ?? DEFAULT_MAX_IDENTIFIABLE_CHARS;
  const reader = new EnvironmentReader(sink);
  const parser = new SaxesParser({ xmlns: true, position: true });
  const at = () => `${parser.line}:${parser.column + 1}`;
  parser.on("doctype", () => {
    throw new AasError("syntax", `Invalid AAS XML at ${at()}: a DOCTYPE (DTD) is not allowed in AAS XML`);
  });
  /** Where the streamed identifiable being read began (saxes counts characters read). */
  let itemStart = 0;
  /** Where the last tag was read: saxes holds all text up to the next tag in one string. */
  let lastTag = 0;
  parser.on("opentag", (tag) => {
    lastTag = parser.position;
    const before = reader.openItem;
    reader.open(tag, at());
    if (reader.openItem !== before) itemStart = parser.position;
  });
  const checkItemSize = () => {
    const item = reader.openItem;
    if (item !== undefined && parser.position - itemStart > maxItemChars)
      throw identifiableTooLarge(item, maxItemChars);
    // Between elements that hold no text only indentation may stand, which the identifiable limit
    // does not count between identifiables: 400 MiB of spaces there (a 410 KB AASX) were held
    // whole, and past V8's longest string the error was its own "Invalid string length".
    if (!reader.inText && parser.position - lastTag > MAX_TEXT_BETWEEN_ELEMENTS)
      throw syntax(
        `more than ${MAX_TEXT_BETWEEN_ELEMENTS / 1024} KiB of text between two tags where only indentation may stand`,
        "",
        at(),
      );
  };
  parser.on("text", (chunk) => reader.text(chunk, at()));
  parser.on("cdata", (chunk) => reader.text(chunk, at()));
  parser.on("closetag", () => {
    // Also here, not only between slices: a whole identifiable may open and close within one.
    checkItemSize();
    lastTag = parser.position;
    reader.close(at());
  });
  let first = true;
  const guarded = (work: () => void): void => {
    try {
      work();
    } catch (error) {
      if (isAasError(error)) throw error;
      throw new AasError("syntax", `Invalid XML: ${(error as Error).message}`);
    }
  };
  return {
    write(chunk) {
      // A byte order mark is not part of the document (saxes would call it text before the root).
      const text = first && chunk.charCodeAt(0) === 0xfeff ? chunk.slice(1) : chunk;
      if (chunk.length > 0) first = false;
      for (let from = 0; from < text.length || from === 0; from += WRITE_SLICE)
        guarded(() => {
          parser.write(text.slice(from, from + WRITE_SLICE));
          checkItemSize();
        });
    },
    end() {
      guarded(() => parser.close());
      return reader.result();
    },
  };
}

type Frame =
  | {
      kind: "object";
      className: string;
      value: Record<string, unknown>;
      path: string;
      deliver: (value: unknown) => void;
    }
  | {
      kind: "list";
      itemRef: ClassRef;
      value: unknown[];
      path: string;
      deliver: (value: unknown) => void;
      /** Items read so far (the list stays empty when they are streamed out). */
      count: number;
      /** Set on the environment's own lists when the reader streams: where each item goes. */
      stream?: (value: unknown, index: number) => void;
    }
  | { kind: "choice"; classRef: ClassRef; value?: unknown; path: string; deliver: (value: unknown) => void }
  | {
      kind: "text";
      className: string;
      property: string;
      text: string;
      path: string;
      deliver: (value: unknown) => void;
    };

/** Characters between two tags where no value is read (only indentation belongs there). */
const MAX_TEXT_BETWEEN_ELEMENTS = 1024 * 1024;

/** Text handed to saxes at once: how far past the identifiable size limit reading may get. */
const WRITE_SLICE = 64 * 1024;

class EnvironmentReader {
  private readonly stack: Frame[] = [];
  private environment: Record<string, unknown> | undefined;
  /** The streamed identifiable being read (its path, e.g. `submodels[3]`), between its tags. */
  openItem: string | undefined;

  /** Whether text read now is a value (the innermost open element holds text). */
  get inText(): boolean {
    return this.stack.at(-1)?.kind === "text";
  }

  constructor(private readonly sink: EnvironmentItemSink | undefined) {}

  open(tag: SaxesTagNS, at: string): void {
    const parent = this.stack.at(-1);
    if (parent === undefined) return this.openRoot(tag, at);
    // The stack is ours (saxes does not recurse), but what is built from it is read recursively.
    if (this.stack.length >= maxDocumentDepth()) throw documentTooDeep("XML document");
    const path = parent.path;
    if (tag.uri !== AAS_XML_NAMESPACE) {
      const name = tag.uri === "" ? tag.local : `{${tag.uri}}${tag.local}`;
      throw unknownElement(`<${name}> is not in the AAS v3.0 namespace`, path, at);
    }
    checkAttributes(tag, path, at);
    switch (parent.kind) {
      case "object":
        return this.openProperty(parent, tag.local, at);
      case "list": {
        const index = parent.count++;
        const className = itemClass(parent.itemRef, tag.local, `${path}[${index}]`, at);
        const stream = parent.stream;
        if (stream) this.openItem = `${path}[${index}]`;
        return this.pushObject(
          className,
          `${path}[${index}]`,
          stream
            ? (value) => {
                this.openItem = undefined;
                stream(value, index);
              }
            : (value) => parent.value.push(value),
        );
      }
      case "choice": {
        if (parent.value !== undefined)
          throw syntax(`${path} holds exactly one element; found a second <${tag.local}>`, path, at);
        const className = itemClass(parent.classRef, tag.local, path, at);
        return this.pushObject(className, path, (value) => (parent.value = value));
      }
      case "text":
        throw unknownElement(`<${tag.local}> inside ${parent.property}, which holds text`, path, at);
    }
  }

  text(chunk: string, at: string): void {
    const top = this.stack.at(-1);
    if (top?.kind === "text") top.text += chunk;
    // Indentation between elements is fine; any other character data is not part of the model.
    else if (top !== undefined && chunk.trim() !== "")
      throw syntax(`unexpected text "${excerpt(chunk)}"`, top.path, at);
  }

  close(at: string): void {
    const frame = this.stack.pop()!;
    switch (frame.kind) {
      case "object":
        if (CLASSES[frame.className].hasModelType) frame.value.modelType = frame.className;
        return frame.deliver(frame.value);
      case "list":
        return frame.deliver(frame.value);
      case "choice":
        if (frame.value === undefined) {
          throw syntax(
            `${frame.path} needs one of <${allowedElementNames(frame.classRef).join(">, <")}>`,
            frame.path,
            at,
          );
        }
        return frame.deliver(frame.value);
      case "text":
        return frame.deliver(
          isBooleanProperty(frame.className, frame.property) ? parseBoolean(frame.text, frame.path, at) : frame.text,
        );
    }
  }

  result(): Record<string, unknown> {
    if (this.environment === undefined) throw new AasError("syntax", "Invalid AAS XML: no <environment> element");
    return this.environment;
  }

  private openRoot(tag: SaxesTagNS, at: string): void {
    if (tag.uri !== AAS_XML_NAMESPACE) throw wrongNamespace(tag.uri, at);
    if (tag.local !== "environment") {
      throw new AasError(
        "syntax",
        `Invalid AAS XML at ${at}: the root element must be <environment>, not <${tag.local}>`,
      );
    }
    checkAttributes(tag, "", at);
    this.pushObject("Environment", "", (value) => (this.environment = value as Record<string, unknown>));
  }

  private openProperty(parent: Extract<Frame, { kind: "object" }>, property: string, at: string): void {
    const path = parent.path === "" ? property : `${parent.path}.${property}`;
    const shape = Object.hasOwn(CLASSES[parent.className].properties, property)
      ? CLASSES[parent.className].properties[property]
      : undefined;
    if (shape === undefined) throw unknownElement(`<${property}> in ${parent.className}`, path, at);
    if (Object.hasOwn(parent.value, property))
      throw syntax(`<${property}> appears twice in ${parent.className}`, path, at);
    const deliver = (value: unknown) => (parent.value[property] = value);
    if (shape === "primitive") {
      this.stack.push({ kind: "text", className: parent.className, property, text: "", path, deliver });
    } else if ("many" in shape) {
      const sink = this.sink;
      const streamed = sink !== undefined && parent.className === "Environment" && this.stack.length === 1;
      this.stack.push({
        kind: "list",
        itemRef: shape.many,
        value: [],
        path,
        deliver,
        count: 0,
        ...(streamed
          ? {
              stream: (value: unknown, index: number) => sink({ key: property as EnvironmentSectionKey, index, value }),
            }
          : {}),
      });
    } else if (isAbstractClass(shape.one)) {
      this.stack.push({ kind: "choice", classRef: shape.one, path, deliver });
    } else {
      this.pushObject(shape.one, path, deliver);
    }
  }

  private pushObject(className: string, path: string, deliver: (value: unknown) => void): void {
    this.stack.push({ kind: "object", className, value: {}, path, deliver });
  }
}

function itemClass(classRef: ClassRef, elementName: string, path: string, at: string): string {
  const className = classOfElement(classRef, elementName);
  if (className !== undefined) return className;
  const allowed = allowedElementNames(classRef);
  throw unknownElement(`<${elementName}> where <${allowed.join(">, <")}> is expected`, path, at);
}

/** Namespace declarations and xsi:* (schemaLocation, …) are allowed; any other attribute is not AAS. */
function checkAttributes(tag: SaxesTagNS, path: string, at: string): void {
  for (const attribute of Object.values(tag.attributes)) {
    if (attribute.prefix === "xmlns" || attribute.name === "xmlns" || attribute.uri === XSI_NAMESPACE) continue;
    throw unknownElement(`attribute ${attribute.name} on <${tag.local}>`, path, at);
  }
}

// xs:boolean's lexical space; whitespace around it is collapsed by the XSD type.
function parseBoolean(text: string, path: string, at: string): boolean {
  const token = text.trim();
  if (token === "true" || token === "1") return true;
  if (token === "false" || token === "0") return false;
  throw new AasError(
    "deserialization",
    `Invalid AAS XML at ${at}: ${path} must be an xs:boolean, not "${excerpt(text)}"`,
    { path },
  );
}

function wrongNamespace(namespace: string, at: string): AasError {
  const legacy = legacyNamespaceVersion(namespace);
  if (legacy !== undefined) {
    return new AasError(
      "syntax",
      `The XML model is in AAS ${legacy} format (namespace ${namespace}); models compliant with v2.x or v3.0 release ` +
        `candidates cannot be loaded unchanged: convert it to AAS v3.0 (e.g. with the AASX Package Explorer)`,
    );
  }
  const found = namespace === "" ? "has no namespace" : `has the namespace ${namespace}`;
  return new AasError(
    "syntax",
    `Invalid AAS XML at ${at}: the root element ${found}; AAS v3.0 XML uses ${AAS_XML_NAMESPACE}`,
  );
}

function unknownElement(what: string, path: string, at: string): AasError {
  return new AasError(
    "unknown-property",
    `Invalid AAS XML at ${at}: unknown ${what}${path === "" ? "" : ` at ${path}`}`,
    optionalPath(path),
  );
}

function syntax(message: string, path: string, at: string): AasError {
  return new AasError("syntax", `Invalid AAS XML at ${at}: ${message}`, optionalPath(path));
}

function optionalPath(path: string): { path?: string } {
  return path === "" ? {} : { path };
}

function excerpt(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > 40 ? `${trimmed.slice(0, 40)}…` : trimmed;
}
