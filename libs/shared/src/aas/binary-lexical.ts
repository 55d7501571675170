/**
 * The lexical forms of xs:base64Binary and xs:hexBinary, checked in one pass. aas-core checks them
 * with regular expressions whose nested groups V8 matches by recursion: a value of ~10 MB overflows
 * the stack, so a firmware Blob of 12 MB written as ValueOnly (or over OPC UA) was refused as "too
 * long to be checked", though nothing in the metamodel limits a Blob's or a base64Binary value's
 * size. These accept exactly what aas-core's expressions accept (binary-lexical.test.ts compares
 * them), at any length.
 */

import { SPACELESS_BASE64 } from "./node-base64.cts";

/** The symbol before "=": its low 2 bits are unused, so it is one of these (aas-core, XSD 1.1). */
const BEFORE_ONE_PAD = "AEIMQUYcgkosw048";
/** The symbol before "==": its low 4 bits are unused. */
const BEFORE_TWO_PADS = "AQgw";

function isBase64Symbol(code: number): boolean {
  return (
    (code >= 65 && code <= 90) || // A-Z
    (code >= 97 && code <= 122) || // a-z
    (code >= 48 && code <= 57) || // 0-9
    code === 43 || // +
    code === 47 // /
  );
}

/**
 * XSD 1.1's xs:base64Binary: groups of four symbols, each symbol optionally followed by one space
 * except the last of the value, the end padded with "=" or "==" (a space allowed before each "=").
 */
export function isBase64BinaryLexical(text: string): boolean {
  // Without spaces (what encoders write), a character class decides it natively: a Blob's value of
  // tens of megabytes took ~100 ms per 40 MB in the loop below, the event loop held meanwhile.
  if (SPACELESS_BASE64.test(text)) {
    if (text.length % 4 !== 0) return false;
    const pads = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
    if (pads === 0) return true;
    return (pads === 1 ? BEFORE_ONE_PAD : BEFORE_TWO_PADS).includes(text.charAt(text.length - pads - 1));
  }
  let symbols = 0;
  let pads = 0;
  let spaceBefore = false;
  // The last symbol other than "=": what the padding rules look at.
  let last = -1;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 32) {
      // Only one space, and only after a symbol.
      if (symbols === 0 || spaceBefore) return false;
      spaceBefore = true;
      continue;
    }
    spaceBefore = false;
    if (code === 61) {
      pads++;
    } else {
      // Nothing but "=" after an "=".
      if (pads > 0 || !isBase64Symbol(code)) return false;
      last = code;
    }
    symbols++;
  }
  if (spaceBefore || symbols % 4 !== 0 || pads > 2) return false;
  if (pads === 1) return BEFORE_ONE_PAD.includes(String.fromCharCode(last));
  if (pads === 2) return BEFORE_TWO_PADS.includes(String.fromCharCode(last));
  return true;
}

/** xs:hexBinary: pairs of hexadecimal digits, either case, nothing else. */
export function isHexBinaryLexical(text: string): boolean {
  if (text.length % 2 !== 0) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const digit = code >= 48 && code <= 57;
    const upper = code >= 65 && code <= 70;
    const lower = code >= 97 && code <= 102;
    if (!(digit || upper || lower)) return false;
  }
  return true;
}
