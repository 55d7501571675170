import assert from "node:assert/strict";
import { test } from "node:test";
import { isLosslessNumber, LosslessNumber, parse, stringify } from "lossless-json";
import { AasError } from "./aas-error.ts";
import { parseJsonLossless, parseJsonText, stringifyLossless } from "./json-text.ts";

test("parseJsonText parses JSON and reports syntax errors with a position", () => {
  assert.deepEqual(parseJsonText('{"a":[1,"x",true,null]}'), { a: [1, "x", true, null] });
  for (const text of ['{"a":}', "[1,2,]", "", '{"a":1}x']) {
    assert.throws(
      () => parseJsonText(text),
      (error: unknown) => error instanceof AasError && error.kind === "syntax" && /position \d+/.test(error.message),
      text,
    );
  }
});

test("parseJsonText counts the depth on the text before it parses anything (a deep document is never built)", () => {
  // Unterminated, so JSON.parse would fail on it: the depth is what answers, so it came first.
  // (60 MB of "[[[…" closed held the event loop 11–15 s in JSON.parse and took 3 GB before the count.)
  assert.throws(
    () => parseJsonText("[".repeat(1_000)),
    (error: unknown) => error instanceof AasError && /nests deeper than/.test(error.message),
  );
  let shallow = parseJsonText(`${"[".repeat(100)}${"]".repeat(100)}`);
  let depth = 0;
  while (Array.isArray(shallow)) {
    depth++;
    shallow = shallow[0];
  }
  assert.equal(depth, 100);
});

test("parseJsonLossless keeps every digit of xs:decimal and xs:long numbers", () => {
  const parsed = parseJsonLossless('{"d": 12345678901234567890.123456789, "l": 9223372036854775807}') as Record<
    string,
    unknown
  >;
  assert.ok(isLosslessNumber(parsed.d) && isLosslessNumber(parsed.l));
  assert.equal(String(parsed.d), "12345678901234567890.123456789");
  assert.equal(stringifyLossless(parsed), '{"d":12345678901234567890.123456789,"l":9223372036854775807}');
  assert.throws(
    () => parseJsonLossless("{"),
    (error: unknown) => error instanceof AasError && error.kind === "syntax",
  );
});

test("stringifyLossless writes plain values like JSON.stringify", () => {
  const value = { a: 1.5, b: [true, null, "x"], c: { d: undefined } };
  assert.equal(stringifyLossless(value), JSON.stringify(value));
  assert.throws(() => stringifyLossless(undefined), TypeError);
});

test("parseJsonLossless gives a one-scalar text the value lossless-json's parser gives it", () => {
  const texts = [
    "0",
    "-0",
    "12345",
    "-17.25",
    "1e5",
    "2.5E-3",
    "12345678901234567890.123456789",
    '""',
    '"abc"',
    '"with space and ünïcödé 🙂"',
    '"a\\"b"',
    '"tab\\tand \\u00e9"',
    "true",
    "false",
    "null",
    " 12",
    "12 ",
    ' "x"',
  ];
  for (const text of texts) {
    const ours = parseJsonLossless(text);
    const theirs = parse(text);
    assert.equal(isLosslessNumber(ours), isLosslessNumber(theirs), text);
    assert.deepEqual(
      isLosslessNumber(ours) ? String(ours) : ours,
      isLosslessNumber(theirs) ? String(theirs) : theirs,
      text,
    );
  }
  // What lossless-json refuses stays refused: leading zeros, a bare sign or dot, control characters, unclosed strings.
  for (const text of ["01", "-", "1.", ".5", "+1", '"a\u0001b"', '"abc', 'abc"', "tru", "nul", "1e", "--1"]) {
    assert.throws(
      () => parseJsonLossless(text),
      (error: unknown) => error instanceof AasError && error.kind === "syntax",
      text,
    );
  }
});

test("stringifyLossless writes a scalar as lossless-json's stringify does", () => {
  const values = [
    "",
    "abc",
    'quote " and \\ and \u0001 and 🙂',
    true,
    false,
    null,
    ...["0", "-1.50", "1e5", "12345678901234567890.5"].map((t) => new LosslessNumber(t)),
  ];
  for (const value of values) assert.equal(stringifyLossless(value), stringify(value), String(value));
});

test("parseJsonLossless gives a long text the values lossless-json gives it (JSON.parse with the numbers' digits)", () => {
  const long = "x".repeat(70 * 1024);
  const text = `{"value":"${long}","numbers":[12345678901234567890.123456789,-0,1e400,0.1,7],"nested":{"a":[true,null,"\\u00e9"]}}`;
  const ours = parseJsonLossless(text) as Record<string, unknown>;
  assert.deepEqual(ours, parse(text));
  const numbers = ours.numbers as unknown[];
  assert.ok(numbers.every(isLosslessNumber));
  assert.equal(stringifyLossless(ours), stringify(parse(text)));
  assert.throws(
    () => parseJsonLossless(`{"value":"${long}",}`),
    (error: unknown) => error instanceof AasError && error.kind === "syntax",
  );
  assert.throws(
    () => parseJsonLossless(`{"value":"${long}","__proto__":{}}`),
    (error: unknown) => error instanceof AasError,
  );
});
