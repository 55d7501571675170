import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import {
  type AasxLimits,
  type AasxPart,
  createAasXmlReader,
  createEnvironmentJsonReader,
  ENVIRONMENT_SECTION_KEYS,
  type EnvironmentItem,
  type EnvironmentStreamReader,
  readAasxOffThread,
} from "../../aas/index.ts";
import { CommandError, type ImportDocument, type ModelFormat } from "../../contracts/index.ts";
import { toCommandError } from "../aas-input.ts";
import { decodeBase64 } from "../files/file-paths.ts";

/**
 * A model document to import, readable more than once: an import reads it twice (first to check
 * every identifiable, then to write them), so the document is never held as a whole, only one
 * identifiable of it at a time. JSON and XML come as text chunks (a file is read from disk on each
 * pass); an AASX package is inflated once (within its limits) and kept for both passes.
 */
export interface ImportSource {
  /** How the document is named in messages. */
  source: string;
  format: ModelFormat;
  /** JSON or XML text in chunks, from the start each time it is called. */
  chunks?: () => AsyncIterable<string>;
  /** AASX: the package. */
  bytes?: () => Promise<Uint8Array>;
}

/** Text is handed to the readers in pieces of this size, so the identifiables they queue stay few. */
const CHUNK_CHARS = 256 * 1024;

/** An ImportDocument (a command's content, already in memory). */
export function sourceOfDocument(document: ImportDocument, source: string): ImportSource {
  switch (document.format) {
    case "json":
    case "xml":
      return {
        source,
        format: document.format,
        chunks: async function* () {
          const text = textOf(document);
          for (let at = 0; at < text.length; at += CHUNK_CHARS) yield text.slice(at, at + CHUNK_CHARS);
          if (text.length === 0) yield "";
        },
      };
    case "aasx":
      return {
        source,
        format: "aasx",
        bytes: async () => {
          if (document.contentBase64 === undefined)
            throw new CommandError("bad-request", "An AASX package travels as contentBase64");
          return decodeBase64(document.contentBase64, "The package");
        },
      };
    default:
      return {
        source,
        format: document.format,
        chunks: () => {
          throw new CommandError(
            "bad-request",
            `Unknown model format '${String((document as { format?: unknown }).format)}'; known: json, xml, aasx`,
          );
        },
      };
  }
}

/** A model file on disk, read in chunks on every pass (start-up models). */
export function sourceOfFile(path: string, format: ModelFormat, source: string): ImportSource {
  if (format === "aasx") return { source, format, bytes: async () => new Uint8Array(await readFile(path)) };
  return {
    source,
    format,
    chunks: async function* () {
      const stream = createReadStream(path, { highWaterMark: CHUNK_CHARS, encoding: "utf8" });
      try {
        for await (const chunk of stream) yield chunk as string;
      } finally {
        stream.destroy();
      }
    },
  };
}

/** One pass over a document: each identifiable in document order, and (AASX) the files it carries. */
export interface SourceReading {
  files: AasxPart[];
}

/**
 * Reads `source` once, calling `visit` for each identifiable as it is read (awaited before the
 * reader goes on, so memory holds one chunk's worth). What cannot be read fails the whole document
 * with a `bad-request` whose message starts with its name; errors `visit` throws pass unchanged.
 * `decoded` carries an AASX package's content from the first pass to the next.
 */
export async function readSource(
  source: ImportSource,
  limits: AasxLimits,
  visit: (item: EnvironmentItem) => Promise<void> | void,
  decoded: Map<ImportSource, { environment: Record<string, unknown>; files: AasxPart[] }>,
): Promise<SourceReading> {
  if (source.format === "aasx") {
    let content = decoded.get(source);
    if (content === undefined) {
      content = await named(source.source, async () => {
        const bytes = await source.bytes!();
        const read = await readAasxOffThread(bytes, limits);
        const files = [...read.files];
        if (read.thumbnail && !files.some((file) => file.path.toLowerCase() === read.thumbnail!.path.toLowerCase()))
          files.push(read.thumbnail);
        checkEnvironmentShape(read.environment);
        return { environment: read.environment, files };
      });
      decoded.set(source, content);
    }
    for (const key of ENVIRONMENT_SECTION_KEYS) {
      const list = (content.environment[key] ?? []) as unknown[];
      for (let index = 0; index < list.length; index++) await visit({ key, index, value: list[index] });
    }
    return { files: content.files };
  }
  const queue: EnvironmentItem[] = [];
  const reader: EnvironmentStreamReader =
    source.format === "xml"
      ? xmlReader((item) => queue.push(item))
      : createEnvironmentJsonReader((item) => queue.push(item));
  const drain = async () => {
    // Handed over one at a time, and the queue emptied as it goes, so nothing read stays referenced.
    while (queue.length > 0) await visit(queue.shift()!);
  };
  const chunks = await named(source.source, async () => source.chunks!());
  const iterator = chunks[Symbol.asyncIterator]();
  for (;;) {
    const next = await named(source.source, async () => {
      const step = await iterator.next();
      if (!step.done) reader.write(step.value);
      return step;
    });
    if (next.done) break;
    await drain();
  }
  await named(source.source, async () => reader.end());
  await drain();
  return { files: [] };
}

function xmlReader(sink: (item: EnvironmentItem) => void): EnvironmentStreamReader {
  const reader = createAasXmlReader(sink);
  let empty = true;
  return {
    write(chunk) {
      if (chunk.trim() !== "") empty = false;
      reader.write(chunk);
    },
    end() {
      if (empty) throw new CommandError("bad-request", "The document is empty");
      reader.end();
    },
  };
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

/** Unknown top-level keys and non-list sections make the whole document unreadable (spec §7.2). */
function checkEnvironmentShape(environment: Record<string, unknown>): void {
  const known = new Set<string>(ENVIRONMENT_SECTION_KEYS);
  for (const [key, value] of Object.entries(environment)) {
    if (!known.has(key)) {
      throw new CommandError(
        "bad-request",
        `unknown property '${key}' in the environment; known: ${[...known].join(", ")}`,
        { path: key },
      );
    }
    if (value !== null && !Array.isArray(value))
      throw new CommandError("bad-request", `'${key}' must be a list`, { path: key });
  }
}

/** Runs a reading step; what fails there fails the document, named, as malformed input. */
async function named<T>(source: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const converted = toCommandError(error);
    if (!(converted instanceof CommandError)) throw converted;
    // Nothing could be read, so whatever kind of error it was, the document is malformed input.
    throw new CommandError("bad-request", `${source}: ${converted.message}`, {
      path: converted.path,
      details: converted.details,
    });
  }
}
