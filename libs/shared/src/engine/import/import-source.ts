import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import {
  AasError,
  type AasxLimits,
  type AasxPart,
  createAasXmlReader,
  createEnvironmentJsonReader,
  type EnvironmentItem,
  type EnvironmentStreamReader,
  isAasError,
  type OpenedAasx,
  openAasxOffThread,
  packagePathsInModel,
} from "../../aas/index.ts";
import { CommandError, type ImportDocument, type ModelFormat } from "../../contracts/index.ts";
import { toCommandError } from "../aas-input.ts";
import { decodeBase64 } from "../files/file-paths.ts";
import { TurnKeeper } from "./turn-keeper.ts";

/**
 * A model document to import, readable more than once: an import reads it twice (first to check
 * every identifiable, then to write them), so the document is never held as a whole, only one
 * identifiable of it at a time. JSON and XML come as text chunks (a file is read from disk on each
 * pass); an AASX package is held compressed, its files inflated once (within the limits), and its
 * spec part inflated again as each pass reads it.
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

/** Text is read in chunks of this size (a file from disk, a document in memory). */
const CHUNK_CHARS = 256 * 1024;
/** A reader is handed at most this much text at once, so the identifiables it queues stay few. */
const PIECE_CHARS = 16 * 1024;

/** An ImportDocument (a command's content, already in memory). */
export function sourceOfDocument(document: ImportDocument, source: string): ImportSource {
  switch (document.format) {
    case "json":
    case "xml":
      return {
        source,
        format: document.format,
        chunks: async function* () {
          const text = textOf(document, document.format === "xml");
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
      const stream = createReadStream(path, { highWaterMark: CHUNK_CHARS });
      // UTF-8, or for XML UTF-16 with its byte order mark (textOf says why); the decoder keeps a
      // character split between two chunks for the next.
      let decoder: TextDecoder | undefined;
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          decoder ??= new TextDecoder((format === "xml" ? utf16Of(chunk) : undefined) ?? "utf-8");
          yield decoder.decode(chunk, { stream: true });
        }
        const rest = decoder?.decode() ?? "";
        if (rest !== "") yield rest;
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
 * `opened` carries an opened AASX package from the first pass to the next (its spec part is
 * inflated again on each pass, never held).
 */
export async function readSource(
  source: ImportSource,
  limits: AasxLimits,
  visit: (item: EnvironmentItem) => Promise<void> | void,
  opened: Map<ImportSource, OpenedAasx>,
): Promise<SourceReading> {
  // What one write of text produced; emptied by drain (a slot at a time, never shifted: linear).
  const queue: (EnvironmentItem | undefined)[] = [];
  const modelPaths: string[] = [];
  let chunks: AsyncIterable<string> | Iterable<string>;
  let format = source.format;
  let prefix = "";
  let aasx: OpenedAasx | undefined;
  if (source.format === "aasx") {
    aasx = opened.get(source);
    if (aasx === undefined) {
      aasx = await named(source.source, async () => openAasxOffThread(await source.bytes!(), limits));
      opened.set(source, aasx);
    }
    format = aasx.format;
    // As the whole-package reader names them: the spec part's problems start with its name.
    prefix = `${aasx.specPath}: `;
    chunks = aasx.specText();
  } else chunks = await named(source.source, async () => source.chunks!());
  const reader: EnvironmentStreamReader =
    format === "xml"
      ? xmlReader((item) => queue.push(item), limits.maxIdentifiableChars)
      : createEnvironmentJsonReader((item) => queue.push(item), { maxItemChars: limits.maxIdentifiableChars });
  const turn = new TurnKeeper();
  const drain = async () => {
    // Handed over one at a time, each slot cleared as it goes, so nothing read stays referenced.
    // Indexed, not shifted: shift() moves every item behind it, quadratic over a chunk of `{}`s.
    for (let at = 0; at < queue.length; at++) {
      const item = queue[at]!;
      queue[at] = undefined;
      if (aasx) modelPaths.push(...packagePathsInModel(item.value));
      await visit(item);
      await turn.pause();
    }
    queue.length = 0;
  };
  const write = (text: string) => {
    try {
      reader.write(text);
    } catch (error) {
      throw prefixed(error, prefix);
    }
  };
  const iterator =
    Symbol.asyncIterator in chunks ? chunks[Symbol.asyncIterator]() : (chunks as Iterable<string>)[Symbol.iterator]();
  try {
    for (;;) {
      const next = await named(source.source, async () => await iterator.next());
      if (next.done) break;
      // In pieces, each drained before the next is read: a chunk (a compressed slice can inflate to
      // megabytes) of tiny identifiables would otherwise queue millions of them at once.
      for (let at = 0; at < next.value.length || at === 0; at += PIECE_CHARS) {
        await named(source.source, async () => write(next.value.slice(at, at + PIECE_CHARS)));
        await drain();
        await turn.pause();
      }
    }
  } catch (error) {
    // Given up half-way (a problem in all-or-nothing, a failed batch): the file is closed now, not at GC.
    await Promise.resolve(iterator.return?.()).catch(() => undefined);
    throw error;
  }
  await named(source.source, async () => {
    try {
      reader.end();
    } catch (error) {
      throw prefixed(error, prefix);
    }
  });
  await drain();
  if (!aasx) return { files: [] };
  const { files, thumbnail } = aasx.filesOf(modelPaths);
  if (thumbnail && !files.some((file) => file.path.toLowerCase() === thumbnail.path.toLowerCase()))
    files.push(thumbnail);
  return { files };
}

function prefixed(error: unknown, prefix: string): unknown {
  if (prefix === "" || !isAasError(error)) return error;
  return new AasError(error.kind, `${prefix}${error.message}`, {
    details: error.details,
    ...(error.path === undefined ? {} : { path: error.path }),
  });
}

function xmlReader(sink: (item: EnvironmentItem) => void, maxItemChars?: number): EnvironmentStreamReader {
  const reader = createAasXmlReader(sink, maxItemChars === undefined ? {} : { maxItemChars });
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

/**
 * The document's text. JSON is UTF-8 (RFC 8259 §8.1); an XML document may be UTF-16 with its byte
 * order mark, which every XML processor must read (XML 1.0 §4.3.3), as AASX spec parts already are.
 */
function textOf(document: ImportDocument, xml: boolean): string {
  if (typeof document.text === "string") return document.text;
  if (typeof document.contentBase64 === "string") {
    try {
      const bytes = decodeBase64(document.contentBase64, "The document");
      const utf16 = xml ? utf16Of(bytes) : undefined;
      if (utf16 !== undefined) return new TextDecoder(utf16, { fatal: true }).decode(bytes);
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch (error) {
      if (error instanceof CommandError) throw error;
      throw new CommandError("bad-request", `The document is not ${xml ? "UTF-8 or UTF-16" : "UTF-8"} text`);
    }
  }
  throw new CommandError("bad-request", "The document has no content (text or contentBase64)");
}

function utf16Of(bytes: Uint8Array): "utf-16le" | "utf-16be" | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return undefined;
}

/** Runs a reading step; what fails there fails the document, named, as malformed input. */
async function named<T>(source: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const converted = toCommandError(error);
    if (!(converted instanceof CommandError)) throw converted;
    // Nothing could be read, so whatever kind of error it was, the document is malformed input;
    // but an identifiable over core.importMaxIdentifiableSize stays a 413, as a body too large is.
    const code = converted.code === "payload-too-large" ? converted.code : "bad-request";
    throw new CommandError(code, `${source}: ${converted.message}`, {
      path: converted.path,
      details: converted.details,
    });
  }
}
