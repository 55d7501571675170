import assert from "node:assert/strict";
import { test } from "node:test";
import { parseJsonLossless, stringifyLossless } from "@twinport/shared";
import { compileJsonPath, JsonPathError } from "./json-path.ts";

// The examples of RFC 9535 (JSONPath), each with the RFC's document and the nodes it lists.
// Documents go through parseJsonLossless, as asset payloads do, so numbers are LosslessNumbers.
const parse = (json: string) => parseJsonLossless(json);
// Back to plain JSON to compare with the RFC's results (the numbers in them are small).
const plain = (values: unknown[]) => JSON.parse(stringifyLossless(values)) as unknown;
const query = (path: string, document: unknown) => plain(compileJsonPath(path).evaluate(document));

test("RFC 9535 §2.3.1.3: name selectors, in single and double quotes", () => {
  const document = parse(`{"o": {"j j": {"k.k": 3}}, "'": {"@": 2}}`);
  assert.deepEqual(query("$.o['j j']", document), [{ "k.k": 3 }]);
  assert.deepEqual(query("$.o['j j']['k.k']", document), [3]);
  assert.deepEqual(query(`$.o["j j"]["k.k"]`, document), [3]);
  assert.deepEqual(query(`$["'"]["@"]`, document), [2]);
});

test("RFC 9535 §2.3.4.3 and §2.5.1.3: slices and child segments with several selectors", () => {
  const document = parse(`["a", "b", "c", "d", "e", "f", "g"]`);
  assert.deepEqual(query("$[1:3]", document), ["b", "c"]);
  assert.deepEqual(query("$[5:]", document), ["f", "g"]);
  assert.deepEqual(query("$[1:5:2]", document), ["b", "d"]);
  assert.deepEqual(query("$[5:1:-2]", document), ["f", "d"]);
  assert.deepEqual(query("$[::-1]", document), ["g", "f", "e", "d", "c", "b", "a"]);
  assert.deepEqual(query("$[0, 3]", document), ["a", "d"]);
  assert.deepEqual(query("$[0:2, 5]", document), ["a", "b", "f"]);
  assert.deepEqual(query("$[0, 0]", document), ["a", "a"]);
});

test("RFC 9535 §2.5.2.3: descendant segments", () => {
  const document = parse(`{"o": {"j": 1, "k": 2}, "a": [5, 3, [{"j": 4}, {"k": 6}]]}`);
  assert.deepEqual(query("$..j", document), [1, 4]);
  assert.deepEqual(query("$..[0]", document), [5, { j: 4 }]);
  assert.deepEqual(query("$..o", document), [{ j: 1, k: 2 }]);
  assert.deepEqual(query("$.a..[0, 1]", document), [5, 3, { j: 4 }, { k: 6 }]);
});

test("RFC 9535 §2.3.5.3: filter selectors, comparing lossless numbers as numbers", () => {
  const document = parse(
    `{"a": [3, 5, 1, 2, 4, 6, {"b": "j"}, {"b": "k"}, {"b": {}}, {"b": "kilo"}], "o": {"p": 1, "q": 2, "r": 3, "s": 5, "t": {"u": 6}}, "e": "f"}`,
  );
  assert.deepEqual(query("$.a[?@.b == 'kilo']", document), [{ b: "kilo" }]);
  assert.deepEqual(query("$.a[?(@.b == 'kilo')]", document), [{ b: "kilo" }]);
  assert.deepEqual(query("$.a[?@>3.5]", document), [5, 4, 6]);
  assert.deepEqual(query("$.a[?@.b]", document), [{ b: "j" }, { b: "k" }, { b: {} }, { b: "kilo" }]);
  assert.equal((query("$[?@.*]", document) as unknown[]).length, 2);
  assert.equal((query("$[?@[?@.b]]", document) as unknown[][])[0].length, 10);
  assert.deepEqual(query("$.o[?@<3, ?@<3]", document), [1, 2, 1, 2]);
  assert.deepEqual(query(`$.a[?@<2 || @.b == "k"]`, document), [1, { b: "k" }]);
  assert.deepEqual(query(`$.a[?match(@.b, "[jk]")]`, document), [{ b: "j" }, { b: "k" }]);
  assert.deepEqual(query(`$.a[?search(@.b, "[jk]")]`, document), [{ b: "j" }, { b: "k" }, { b: "kilo" }]);
  assert.deepEqual(query("$.o[?@>1 && @<4]", document), [2, 3]);
  assert.deepEqual(query("$.o[?@.u || @.x]", document), [{ u: 6 }]);
  assert.deepEqual(query("$.a[?@.b == $.x]", document), [3, 5, 1, 2, 4, 6]);
  assert.equal((query("$.a[?@ == @]", document) as unknown[]).length, 10);
});

test("RFC 9535 §2.1.1: blank space (space, tab, LF, CR) around segments, selectors and operators", () => {
  const document = parse(`{"a": [3, 5, 1, 2, 4, 6, {"b": "j"}, {"b": "k"}], "o": {"p": 1, "q": 2}}`);
  assert.deepEqual(query("$ .o\t.p", document), [1]);
  assert.deepEqual(query("$\n[ 'o' ]\r\n[\t'q'\t]", document), [2]);
  assert.deepEqual(query("$.a[ 0 ,\n1 ]", document), [3, 5]);
  assert.deepEqual(query("$.a[\t?\t@.b\n==\r\n'k'\t]", document), [{ b: "k" }]);
  assert.deepEqual(query("$.a[?( @ > 4\t&&\n@ < 6 )]", document), [5]);
  assert.deepEqual(query("$.a[?@>2&&@<4]", document), [3]);
  // No blank space inside a dot shorthand (RFC 9535 §2.5.1.1).
  assert.throws(() => compileJsonPath("$. o"), JsonPathError);
});

test("RFC 9535 §2.3.1.1: escapes in string literals (\\n, \\t, \\uXXXX, surrogate pairs, quotes)", () => {
  const document = parse(
    JSON.stringify({
      "line\nbreak": 1,
      "tab\there": 2,
      é: 3,
      "𝄞": 4,
      "it's": 5,
      'say "hi"': 6,
      items: [{ text: "a\nb" }, { text: "a" }],
    }),
  );
  assert.deepEqual(query("$['line\\nbreak']", document), [1]);
  assert.deepEqual(query(`$["tab\\there"]`, document), [2]);
  assert.deepEqual(query("$['\\u00e9']", document), [3]);
  assert.deepEqual(query("$['\\uD834\\uDD1E']", document), [4]);
  assert.deepEqual(query("$['it\\'s']", document), [5]);
  assert.deepEqual(query(`$["say \\"hi\\""]`, document), [6]);
  assert.deepEqual(query("$.items[?@.text == 'a\\nb']", document), [{ text: "a\nb" }]);
  // An escape the RFC does not define is an error, not a silently dropped backslash.
  assert.throws(() => compileJsonPath("$['\\q']"), JsonPathError);
});
