/**
 * The one lexical form we store for a value typed by `valueType` (every model write passes
 * normalizeInput, which calls this), so the full JSON, ValueOnly and OPC UA show the same value
 * however a client wrote it. Only forms whose value is unambiguous are rewritten:
 * - xs:integer and its derived types (xs:int, xs:long, xs:unsignedByte, …): XSD's canonical form,
 *   no "+", no leading zeros, "-0" → "0" (an integer has no negative zero);
 * - xs:decimal: no "+", no leading zeros, "0" before a bare fraction (".5" → "0.5"), "5." → "5",
 *   and no "-" on a zero ("-0.0" → "0.0"); fraction digits are kept ("1.50" stays "1.50"), since
 *   they state a precision;
 * - xs:boolean: "1"/"0" → "true"/"false" (XSD's canonical form; the API shows true/false), and
 *   "True"/"FALSE" and other spellings in another case → "true"/"false" (docs/adr/0031: generators
 *   such as FA³ST's AID examples write Python's and .NET's spelling; there is no other reading);
 * - xs:dateTime: a space instead of the "T" between date and time ("2024-01-01 10:00:00", what
 *   SQL and Python's str(datetime) write) → "2024-01-01T10:00:00" (docs/adr/0031);
 * - xs:double, xs:float: no "+", no leading zeros, "0" before a bare fraction; "-0" stays, as
 *   IEEE 754 has a negative zero; INF, -INF and NaN stay as they are.
 * Whitespace is not trimmed: the value was checked against the lexical space as written.
 * Anything not matching the expected form is returned unchanged, for verification to judge.
 */
export function canonicalLexical(lexical: string, valueType: unknown): string {
  if (typeof valueType !== "string") return lexical;
  if (valueType === "xs:boolean") return canonicalBoolean(lexical);
  if (valueType === "xs:dateTime") return lexical.replace(SPACED_DATE_TIME, "$1T$2");
  if (INTEGER_TYPES.has(valueType)) return canonicalInteger(lexical);
  if (valueType === "xs:decimal") return canonicalDecimal(lexical, true);
  if (valueType === "xs:double" || valueType === "xs:float") return canonicalDecimal(lexical, false);
  return lexical;
}

function canonicalBoolean(lexical: string): string {
  if (lexical === "1") return "true";
  if (lexical === "0") return "false";
  const lower = lexical.toLowerCase();
  return lower === "true" || lower === "false" ? lower : lexical;
}

/** Date, one space, a full time with optional fraction and zone: only the separator differs from xs:dateTime. */
const SPACED_DATE_TIME =
  /^(-?[0-9]{4,}-[0-9]{2}-[0-9]{2}) ([0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2})?)$/;

const INTEGER_TYPES = new Set([
  "xs:integer",
  "xs:long",
  "xs:int",
  "xs:short",
  "xs:byte",
  "xs:unsignedLong",
  "xs:unsignedInt",
  "xs:unsignedShort",
  "xs:unsignedByte",
  "xs:positiveInteger",
  "xs:nonNegativeInteger",
  "xs:negativeInteger",
  "xs:nonPositiveInteger",
]);

function canonicalInteger(lexical: string): string {
  const match = /^([+-]?)([0-9]+)$/.exec(lexical);
  if (match === null) return lexical;
  const digits = match[2]!.replace(/^0+(?=[0-9])/, "");
  return match[1] === "-" && digits !== "0" ? `-${digits}` : digits;
}

// Sign, integer digits, fraction digits, exponent (only xs:double/xs:float have one).
const NUMBER = /^([+-]?)([0-9]*)(?:\.([0-9]*))?([eE][+-]?[0-9]+)?$/;

function canonicalDecimal(lexical: string, unsignedZero: boolean): string {
  const match = NUMBER.exec(lexical);
  if (match === null) return lexical;
  const [, sign, integerDigits = "", fraction, exponent = ""] = match;
  if (integerDigits === "" && (fraction === undefined || fraction === "")) return lexical;
  if (unsignedZero && exponent !== "") return lexical; // not a decimal: left to verification
  const integer = integerDigits.replace(/^0+(?=[0-9])/, "") || "0";
  const fractionPart = fraction ? `.${fraction}` : "";
  const zero = /^0*$/.test(integer + (fraction ?? ""));
  const minus = sign === "-" && !(unsignedZero && zero) ? "-" : "";
  return `${minus}${integer}${fractionPart}${exponent}`;
}
