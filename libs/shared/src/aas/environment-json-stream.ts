import { AasError } from "./aas-error.ts";
import {
  ENVIRONMENT_SECTION_KEYS,
  type EnvironmentItemSink,
  type EnvironmentSectionKey,
  type EnvironmentStreamReader,
} from "./environment-stream.ts";
import { DEFAULT_MAX_IDENTIFIABLE_CHARS, identifiableTooLarge } from "./identifiable-size.ts";
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  refuseProtoKeys,
} from "./json-keys.ts";
import { parseJsonText } from "./json-text.ts";
import { detectJsonFormatProblem } from "./legacy-format.ts";
import { documentTooDeep, maxDocumentDepth } from "./nesting-limit.ts";

/**
 * AAS JSON environment text, fed in chunks → one identifiable at a time. Only the frame (the root
 * object, its keys and the brackets of its three lists) is scanned here, a character at a time;
 * each identifiable's text is cut out whole and parsed by JSON.parse (parseJsonText: the nesting
 * and `__proto__` checks), so memory holds one identifiable, never the document.
 *
 * Refused as the whole-document reader refuses them (spec §7.2, §9.2): a root that is not an
 * object, an unknown top-level key, a section that is not a list (null is an empty one), nesting
 * deeper than the limit, and any JSON syntax error — the document is then unreadable as a whole.
 * A v2/RC-format identifiable is recognised by whoever fails to read it (engine/import), so valid
 * identifiables are not walked an extra time.
 */
export function createEnvironmentJsonReader(
  sink: EnvironmentItemSink,
  options: { maxItemChars?: number } = {},
): EnvironmentStreamReader {
  return new JsonEnvironmentScanner(sink, options.maxItemChars ?? DEFAULT_MAX_IDENTIFIABLE_CHARS);
}

/**
 * Longer than any key the environment knows, even written with `\u` escapes: a longer key is
 * refused as it is read, not gathered (a key of 600 M characters failed to join as a string).
 */
const MAX_KEY_CHARS = 1024;

const COMMA = 0x2c;
const COLON = 0x3a;
const BOM = 0xfeff;
const STRING_STOPS = /["\\]/g;
/** The next character that is not JSON whitespace. */
const NON_SPACE = /[^ \t\n\r]/g;
/** Whitespace between two tokens of the frame (outside the identifiables' own text). */
const MAX_SPACE_BETWEEN_TOKENS = 1024 * 1024;
const STRUCTURE_STOPS = /["{}[\]]/g;

type State =
  /** Before the root object. */
  | "start"
  /** In the root, after `{` (a key or `}`) or after `,` (a key). */
  | "key-or-end"
  | "key"
  /** Inside a key string. */
  | "key-text"
  | "colon"
  | "value"
  /** A section given as `null`. */
  | "null-literal"
  | "comma-or-end"
  /** In a section's list: after `[` (an item or `]`), after `,` (an item), after an item. */
  | "item-or-close"
  | "item"
  | "comma-or-close"
  /** Inside an item's text. */
  | "item-text"
  | "after";

const KNOWN: ReadonlySet<string> = new Set(ENVIRONMENT_SECTION_KEYS);

class JsonEnvironmentScanner implements EnvironmentStreamReader {
  private state: State = "start";
  /** Characters read before the current chunk (for positions in messages). */
  private offset = 0;
  private readonly seenKeys = new Set<string>();
  private key: EnvironmentSectionKey | undefined;
  private index = 0;
  /** Text of the key or item being read, across chunks. */
  private pieces: string[] = [];
  /** Characters in `pieces`. */
  private piecesChars = 0;
  /** Whitespace read since the frame's last token (across chunks). */
  private spaceRun = 0;
  private nesting = 0;
  private inString = false;
  private escaped = false;
  /** An item that is a bare scalar (not an object): ends at whitespace, `,` or `]`. */
  private scalar = false;
  private literal = "";

  constructor(
    private readonly sink: EnvironmentItemSink,
    /** core.importMaxIdentifiableSize: an item is refused as soon as its text passes it, before it is joined. */
    private readonly maxItemChars: number,
  ) {}

  write(chunk: string): void {
    let from = 0;
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      if (this.state === "item-text") {
        i = this.scanItem(chunk, i, from);
        from = i;
        continue;
      }
      if (this.state === "key-text") {
        const end = this.scanString(chunk, i);
        if (end < 0) {
          this.keep(chunk.slice(from));
          i = n;
          from = n;
          break;
        }
        this.keep(chunk.slice(from, end + 1));
        this.finishKey();
        i = end + 1;
        continue;
      }
      const c = chunk.charCodeAt(i);
      if (c === BOM && this.offset + i === 0) {
        i++;
        continue;
      }
      if (isSpace(c)) {
        if (this.state === "null-literal") this.finishLiteral(i);
        // Skipped with one regex step, not a character at a time, and bounded: only indentation
        // belongs between the frame's tokens, and 400 MiB of spaces there (a 410 KB AASX) took 9 s
        // of CPU before the import answered (black-box finding; the XML reader has the same bound).
        NON_SPACE.lastIndex = i;
        const next = NON_SPACE.exec(chunk)?.index ?? n;
        this.spaceRun += next - i;
        if (this.spaceRun > MAX_SPACE_BETWEEN_TOKENS)
          throw new AasError(
            "syntax",
            `more than ${MAX_SPACE_BETWEEN_TOKENS / 1024} KiB of whitespace between two tokens of the environment, where only indentation belongs`,
          );
        i = next;
        continue;
      }
      this.spaceRun = 0;
      this.structural(c, chunk, i);
      // structural() may have begun an item or a key at this character: its text starts here.
      const now = this.state as State;
      if (now === "item-text" || now === "key-text") from = i;
      i++;
    }
    // An item or key that began at this chunk's last character continues in the next.
    if ((this.state === "item-text" || this.state === "key-text") && from < n) this.keep(chunk.slice(from));
    this.offset += n;
  }

  end(): void {
    if (this.state === "item-text" && this.scalar && !this.inString) this.finishItem();
    if (this.state === "null-literal") this.finishLiteral(0);
    if (this.state === "start") throw new AasError("syntax", "The document is empty");
    if (this.state !== "after")
      throw new AasError("syntax", "Invalid JSON: the document ends before the environment is complete");
  }

  /** One character outside any item or key text. */
  private structural(c: number, chunk: string, i: number): void {
    const at = this.offset + i;
    switch (this.state) {
      case "start":
        if (c === OPEN_BRACE) return void (this.state = "key-or-end");
        if (c === OPEN_BRACKET || c === QUOTE || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x74 || c === 0x66)
          throw new AasError("syntax", "An AAS environment must be a JSON object");
        if (c === 0x6e) throw new AasError("syntax", "An AAS environment must be a JSON object");
        return unexpected(chunk, i, at);
      case "key-or-end":
        if (c === CLOSE_BRACE) return void (this.state = "after");
      // falls through: otherwise a key
      case "key":
        if (c !== QUOTE) return unexpected(chunk, i, at);
        this.state = "key-text";
        this.pieces = [];
        this.piecesChars = 0;
        this.inString = true;
        this.escaped = false;
        return;
      case "colon":
        if (c !== COLON) return unexpected(chunk, i, at);
        return void (this.state = "value");
      case "value":
        if (c === OPEN_BRACKET) {
          this.index = 0;
          return void (this.state = "item-or-close");
        }
        if (c === 0x6e) {
          this.literal = "n";
          return void (this.state = "null-literal");
        }
        throw new AasError("syntax", `'${this.key}' must be a list`, { path: this.key });
      case "null-literal":
        if (c === COMMA || c === CLOSE_BRACE) {
          this.finishLiteral(i);
          return this.structural(c, chunk, i);
        }
        this.literal += String.fromCharCode(c);
        if (this.literal.length > 4) throw new AasError("syntax", `'${this.key}' must be a list`, { path: this.key });
        return;
      case "comma-or-end":
        if (c === COMMA) return void (this.state = "key");
        if (c === CLOSE_BRACE) return void (this.state = "after");
        return unexpected(chunk, i, at);
      case "item-or-close":
        if (c === CLOSE_BRACKET) return void (this.state = "comma-or-end");
      // falls through: otherwise an item
      case "item":
        this.startItem(c);
        return;
      case "comma-or-close":
        if (c === COMMA) return void (this.state = "item");
        if (c === CLOSE_BRACKET) return void (this.state = "comma-or-end");
        return unexpected(chunk, i, at);
      case "after":
        throw new AasError("syntax", `Invalid JSON: unexpected text after the environment at position ${at}`);
      default:
        return unexpected(chunk, i, at);
    }
  }

  private startItem(c: number): void {
    this.state = "item-text";
    this.pieces = [];
    this.piecesChars = 0;
    this.inString = c === QUOTE;
    this.escaped = false;
    this.scalar = c !== OPEN_BRACE && c !== OPEN_BRACKET;
    this.nesting = this.scalar ? 0 : 1;
  }

  /** Reads item text from `i` (its first character was consumed when `from` < `i`); answers where it stopped. */
  private scanItem(chunk: string, i: number, from: number): number {
    if (this.scalar) return this.scanScalar(chunk, i, from);
    const n = chunk.length;
    let nesting = this.nesting;
    let inString = this.inString;
    const limit = maxDocumentDepth() - 2; // the item sits two levels deep in the document
    // Jumps from one character that matters to the next (a regex scan is far faster than a loop
    // over every character): in a string its end or an escape, outside one a quote or a bracket.
    if (this.escaped) {
      this.escaped = false;
      i++;
    }
    while (i < n) {
      if (inString) {
        STRING_STOPS.lastIndex = i;
        const match = STRING_STOPS.exec(chunk);
        if (match === null) {
          i = n;
          break;
        }
        if (chunk.charCodeAt(match.index) === BACKSLASH) {
          i = match.index + 2;
          if (i > n) {
            this.escaped = true; // the escaped character starts the next chunk
            i = n;
          }
          continue;
        }
        inString = false;
        i = match.index + 1;
        continue;
      }
      STRUCTURE_STOPS.lastIndex = i;
      const match = STRUCTURE_STOPS.exec(chunk);
      if (match === null) {
        i = n;
        break;
      }
      const c = chunk.charCodeAt(match.index);
      i = match.index + 1;
      if (c === QUOTE) inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (++nesting > limit) throw documentTooDeep("JSON document");
      } else if (--nesting === 0) {
        this.keep(chunk.slice(from, i));
        this.nesting = 0;
        this.inString = false;
        this.finishItem();
        return i;
      }
    }
    this.keep(chunk.slice(from, n));
    this.nesting = nesting;
    this.inString = inString;
    return n;
  }

  /** An item that is not an object or list (refused later as an identifiable): up to a delimiter. */
  private scanScalar(chunk: string, i: number, from: number): number {
    const n = chunk.length;
    for (; i < n; i++) {
      const c = chunk.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
        continue;
      }
      if (c === QUOTE) this.inString = true;
      else if (isSpace(c) || c === COMMA || c === CLOSE_BRACKET) {
        this.keep(chunk.slice(from, i));
        this.finishItem();
        return i; // the delimiter is read as structure
      }
    }
    this.keep(chunk.slice(from, n));
    return n;
  }

  /** The end of the key string (its closing quote), or -1 when it continues in the next chunk. */
  private scanString(chunk: string, i: number): number {
    for (; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (this.escaped) this.escaped = false;
      else if (c === BACKSLASH) this.escaped = true;
      else if (c === QUOTE && this.inString) {
        this.inString = false;
        return i;
      }
    }
    return -1;
  }

  /** Keeps a piece of the key or item being read; refuses it once it is too long to hold. */
  private keep(piece: string): void {
    this.piecesChars += piece.length;
    if (this.state === "key-text" && this.piecesChars > MAX_KEY_CHARS)
      throw new AasError(
        "syntax",
        `unknown property (a key of more than ${MAX_KEY_CHARS} characters) in the environment; known: ${[...KNOWN].join(", ")}`,
      );
    if (this.state === "item-text" && this.piecesChars > this.maxItemChars)
      throw identifiableTooLarge(`${this.key}[${this.index}]`, this.maxItemChars);
    this.pieces.push(piece);
  }

  private finishKey(): void {
    const text = this.pieces.join("");
    this.pieces = [];
    const key = parseJsonText(text) as string;
    if (this.seenKeys.has(key))
      throw new AasError("syntax", `Invalid JSON: the environment has '${key}' twice`, { path: key });
    this.seenKeys.add(key);
    if (!KNOWN.has(key)) {
      // Spec §9.2: a v2 environment is recognised by its top-level "assets" list.
      if (key === "assets") throw new AasError("syntax", detectJsonFormatProblem({ assets: [] })!);
      throw new AasError("syntax", `unknown property '${key}' in the environment; known: ${[...KNOWN].join(", ")}`, {
        path: key,
      });
    }
    this.key = key as EnvironmentSectionKey;
    this.state = "colon";
  }

  private finishLiteral(_i: number): void {
    if (this.literal !== "null") throw new AasError("syntax", `'${this.key}' must be a list`, { path: this.key });
    this.state = "comma-or-end";
  }

  private finishItem(): void {
    const text = this.pieces.join("");
    this.pieces = [];
    this.state = "comma-or-close";
    const key = this.key!;
    const index = this.index++;
    const where = `${key}[${index}]`;
    let value: unknown;
    try {
      // The nesting was counted while scanning: only `__proto__` is left to check (json-keys.ts).
      value = JSON.parse(text);
    } catch {
      try {
        parseJsonText(text); // for its message, which names the position
      } catch (error) {
        throw new AasError("syntax", `${(error as Error).message} (in ${where})`, { path: where });
      }
    }
    refuseProtoKeys(value, text);
    this.sink({ key, index, value });
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function unexpected(chunk: string, i: number, at: number): never {
  throw new AasError("syntax", `Invalid JSON: unexpected '${chunk[i]}' at position ${at}`);
}
