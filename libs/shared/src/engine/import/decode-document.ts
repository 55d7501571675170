import {
  AasError,
  type AasxLimits,
  type AasxPart,
  detectJsonFormatProblem,
  parseAasXml,
  parseJsonText,
  readAasxOffThread,
} from "../../aas/index.ts";
import { CommandError, type ImportDocument } from "../../contracts/index.ts";
import { toCommandError } from "../aas-input.ts";
import { decodeBase64 } from "../files/file-paths.ts";

/** A model document read into AAS JSON, with the files an AASX package carried. */
export interface DecodedDocument {
  source: string;
  environment: Record<string, unknown>;
  files: AasxPart[];
}

/** How a document is named in messages. */
export function sourceName(document: ImportDocument, index: number): string {
  return document.source ?? (index === 0 ? "the document" : `document ${index + 1}`);
}

/**
 * JSON, XML or AASX → AAS JSON. Nothing is validated against the metamodel here; what cannot be
 * read at all (not JSON/XML/a zip, a hostile package, an XML with a DOCTYPE, a v2/RC model) fails
 * the whole document with a `bad-request` whose message names the document.
 */
export async function decodeDocument(
  document: ImportDocument,
  source: string,
  limits: AasxLimits,
): Promise<DecodedDocument> {
  try {
    switch (document.format) {
      case "json":
        return { source, environment: readJsonEnvironment(textOf(document)), files: [] };
      case "xml":
        return { source, environment: parseAasXml(textOf(document)), files: [] };
      case "aasx": {
        if (document.contentBase64 === undefined)
          throw new CommandError("bad-request", "An AASX package travels as contentBase64");
        const content = await readAasxOffThread(decodeBase64(document.contentBase64, "The package"), limits);
        const files = [...content.files];
        if (
          content.thumbnail &&
          !files.some((file) => file.path.toLowerCase() === content.thumbnail!.path.toLowerCase())
        )
          files.push(content.thumbnail);
        return { source, environment: content.environment, files };
      }
      default:
        throw new CommandError(
          "bad-request",
          `Unknown model format '${String((document as { format?: unknown }).format)}'; known: json, xml, aasx`,
        );
    }
  } catch (error) {
    throw named(error, source);
  }
}

function textOf(document: ImportDocument): string {
  if (typeof document.text === "string") return document.text;
  if (typeof document.contentBase64 === "string") {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(decodeBase64(document.contentBase64, "The document"));
    } catch (error) {
      if (error instanceof CommandError) throw error;
      throw new CommandError("bad-request", "The document is not UTF-8 text");
    }
  }
  throw new CommandError("bad-request", "The document has no content (text or contentBase64)");
}

function readJsonEnvironment(text: string): Record<string, unknown> {
  if (text.trim() === "") throw new CommandError("bad-request", "The document is empty");
  const json = parseJsonText(text);
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw new CommandError("bad-request", "An AAS environment must be a JSON object");
  // Spec §9.2: v2.x and v3.0 release-candidate models must be converted, not half-read.
  const legacy = detectJsonFormatProblem(json);
  if (legacy !== undefined) throw new AasError("syntax", legacy);
  return json as Record<string, unknown>;
}

/** The error as a CommandError whose message starts with the document's name. */
function named(error: unknown, source: string): unknown {
  const converted = toCommandError(error);
  if (!(converted instanceof CommandError)) return converted;
  // Nothing could be read, so whatever kind of error it was, the document is malformed input.
  return new CommandError("bad-request", `${source}: ${converted.message}`, {
    path: converted.path,
    details: converted.details,
  });
}
