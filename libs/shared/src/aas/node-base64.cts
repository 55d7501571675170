// aas-core's base64 codec, answered by Node's for long values (docs/adr/0061).
//
// aas-core3.0-typescript encodes a Blob's bytes by appending four characters at a time to a string
// and decodes them in a JavaScript loop: a 30 MB Blob cost ~13 s of garbage collection per write,
// and that time the whole process (embedded: every endpoint) stood still. The library has no hook
// for its codec, but its jsonization calls it through the exports of its `common` module at call
// time, so replacing those two exports changes every caller. The replacements give exactly the
// library's answers: Node decodes only what the library reads the same way (canonical base64, a
// length divisible by 4, padding only at the end), anything else still goes to the library's own
// decoder with its own messages; Node's encoder writes the same canonical text the library's does.
// Short values stay with the library: Node would hand out views into its shared 8 KiB pool.
import type * as AasCore from "@aas-core-works/aas-core3.0-typescript";

type Common = typeof AasCore.common;
type Decode = Common["base64Decode"];
type Encode = Common["base64Encode"];

/** From this many characters (and 3/4 as many bytes) on, Node's codec answers. */
export const NODE_BASE64_FROM_CHARS = 8192;
const NODE_BASE64_FROM_BYTES = (NODE_BASE64_FROM_CHARS / 4) * 3;

/**
 * Base64 without spaces: the alphabet, then at most two '=' at the end. One character class, which
 * V8 matches without recursion at any length (binary-lexical.ts checks xs:base64Binary with it too).
 */
export const SPACELESS_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const INSTALLED = Symbol.for("twinport.node-base64");

/** The library's own functions, kept for the comparison tests and for everything Node does not take. */
export interface LibraryBase64 {
  decode: Decode;
  encode: Encode;
}

export function useNodeBase64(common: Common): LibraryBase64 {
  const writable = common as unknown as { base64Decode: Decode; base64Encode: Encode; [INSTALLED]?: LibraryBase64 };
  const installed = writable[INSTALLED];
  if (installed !== undefined) return installed;
  const library: LibraryBase64 = { decode: common.base64Decode, encode: common.base64Encode };
  writable.base64Decode = (text) => {
    if (text.length < NODE_BASE64_FROM_CHARS || text.length % 4 !== 0 || !SPACELESS_BASE64.test(text))
      return library.decode(text);
    const buffer = Buffer.from(text, "base64");
    // A plain Uint8Array over the Buffer's own memory (never pooled at this size), as the library gives.
    return new common.Either<Uint8Array, string>(
      new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength),
      null,
    );
  };
  writable.base64Encode = (bytes) =>
    bytes.length < NODE_BASE64_FROM_BYTES
      ? library.encode(bytes)
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  Object.defineProperty(writable, INSTALLED, { value: library });
  return library;
}
