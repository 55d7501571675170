import assert from "node:assert/strict";
import { test } from "node:test";
import * as aas from "./aas-core.cts";
import { isBase64BinaryLexical, isHexBinaryLexical } from "./binary-lexical.ts";

/** Short strings over an alphabet that hits every rule: symbols, pad-able symbols, "=", spaces, others. */
function* samples(alphabet: string, count: number, maxLength: number, seed: number): Generator<string> {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  for (let i = 0; i < count; i++) {
    const length = Math.floor(random() * maxLength);
    let text = "";
    for (let j = 0; j < length; j++) text += alphabet[Math.floor(random() * alphabet.length)];
    yield text;
  }
}

test("xs:base64Binary: the one-pass check accepts exactly what aas-core's expression accepts", () => {
  const fixed = [
    "",
    "QQ==",
    "QUE=",
    "QUJD",
    "Q Q = =",
    "QUJD QUJD",
    "Q==",
    "QR==",
    "QUF=",
    "=QUE",
    " QUJD",
    "QUJD ",
    "QU  JD",
    "QUJD====",
    "QQ=A",
  ];
  let accepted = 0;
  for (const text of [...fixed, ...samples("AQEgw0Zz+/= =!-", 200_000, 13, 42)]) {
    const expected = aas.verification.matchesXsBase64Binary(text);
    assert.equal(isBase64BinaryLexical(text), expected, JSON.stringify(text));
    if (expected) accepted++;
  }
  assert.ok(accepted > 1000, `only ${accepted} valid samples: the comparison says little`);
});

test("xs:base64Binary without spaces (the character-class path): exactly what aas-core's expression accepts", () => {
  const fixed = [
    "QE==",
    "QQ==",
    "QUE=",
    "QUF=",
    "QUJDQE==",
    "QUJDQR==",
    "QUJDQUE=",
    "QUJDQUI=",
    "=QUJ",
    "QU=J",
    "====",
    "QUJD=",
  ];
  let accepted = 0;
  for (const text of [...fixed, ...samples("AEQgwIZz0+/==", 200_000, 13, 7)]) {
    const expected = aas.verification.matchesXsBase64Binary(text);
    assert.equal(isBase64BinaryLexical(text), expected, JSON.stringify(text));
    if (expected) accepted++;
  }
  assert.ok(accepted > 1000, `only ${accepted} valid samples: the comparison says little`);
});

test("xs:hexBinary: the one-pass check accepts exactly what aas-core's check accepts", () => {
  for (const text of ["", "0a", "0A1f", "0", "0g", " 0a", "0a ", ...samples("09afAFgG -", 50_000, 9, 7)])
    assert.equal(
      isHexBinaryLexical(text),
      aas.verification.valueConsistentWithXsdType(text, aas.types.DataTypeDefXsd.HexBinary),
      JSON.stringify(text),
    );
});

test("values of any length are checked, where aas-core's expressions overflow the stack", () => {
  const base64 = Buffer.alloc(20_000_000, 7).toString("base64");
  assert.throws(() => aas.verification.matchesXsBase64Binary(base64), RangeError);
  assert.equal(isBase64BinaryLexical(base64), true);
  assert.equal(isBase64BinaryLexical(`${base64.slice(0, -4)}!AAA`), false);
  assert.equal(isHexBinaryLexical(Buffer.alloc(10_000_000, 7).toString("hex")), true);
});
