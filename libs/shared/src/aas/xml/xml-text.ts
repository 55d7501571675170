import { AasError } from "../aas-error.ts";

/**
 * Escaping for the XML we write (AAS XML and the OPC parts of an AASX package).
 *
 * XML 1.0 cannot carry every string: control characters other than tab, LF and CR, lone
 * surrogates, U+FFFE and U+FFFF have no representation at all (not even as character references).
 * Silently dropping them would change the model, so writing refuses such a value and names it.
 */

// The complement of XML 1.0's Char production (§2.2); with the `u` flag a lone surrogate is one
// code point and falls outside every allowed range.
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

export function assertXmlChars(text: string, where: string): void {
  const match = NOT_XML_CHAR.exec(text);
  if (match === null) return;
  const code = match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
  throw new AasError(
    "value",
    `Cannot write ${where} as XML 1.0: it contains U+${code}, which XML 1.0 cannot represent`,
    {
      path: where,
    },
  );
}

/**
 * Element content. `>` is escaped too (a literal "]]>" is not allowed in content), and CR as a
 * character reference, because a parser turns a literal CR (and CR LF) into LF.
 */
export function escapeText(text: string, where: string): string {
  assertXmlChars(text, where);
  return text.replace(/[&<>\r]/g, (char) => TEXT_ESCAPES[char]);
}

const TEXT_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#xD;" };

/** Attribute values in double quotes; whitespace as references, since attribute values are normalized. */
export function escapeAttribute(text: string, where: string): string {
  assertXmlChars(text, where);
  return text.replace(/[&<>"\t\n\r]/g, (char) => ATTRIBUTE_ESCAPES[char]);
}

const ATTRIBUTE_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "\t": "&#x9;",
  "\n": "&#xA;",
  "\r": "&#xD;",
};
