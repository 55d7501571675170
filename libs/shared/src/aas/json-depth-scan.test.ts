import assert from "node:assert/strict";
import { test } from "node:test";
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  refuseDeepJsonText,
} from "./json-keys.ts";
import { maxDocumentDepth } from "./nesting-limit.ts";

/** The character-by-character scan refuseDeepJsonText made before it jumped over strings with indexOf. */
function deepestByCharacters(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === BACKSLASH) index++;
      else if (char === QUOTE) inString = false;
    } else if (char === QUOTE) inString = true;
    else if (char === OPEN_BRACE || char === OPEN_BRACKET) deepest = Math.max(deepest, ++depth);
    else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) depth--;
  }
  return deepest;
}

const refused = (text: string) => {
  try {
    refuseDeepJsonText(text);
    return false;
  } catch {
    return true;
  }
};

test("the depth scan that jumps over strings refuses exactly what the character walk refused", () => {
  const limit = maxDocumentDepth();
  // Brackets inside and outside strings, escaped quotes, runs of backslashes, unterminated strings.
  const pieces = ["[", "[", "{", "]", "}", '"', '"', "\\", "\\\\", '\\"', "a", "[[[[", '"[[[[', ","];
  let state = 0x2545f491;
  const random = (n: number) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
  let refusals = 0;
  for (let round = 0; round < 20_000; round++) {
    const parts: string[] = [];
    const length = random(4 * limit);
    for (let i = 0; i < length; i++) parts.push(pieces[random(pieces.length)]!);
    const text = parts.join("");
    const expected = deepestByCharacters(text) > limit && text.length > 2 * limit;
    assert.equal(refused(text), expected, JSON.stringify(text));
    if (expected) refusals++;
  }
  assert.ok(refusals > 100, `both answers were exercised (${refusals} refusals)`);
});

test("brackets inside a long string value do not count, and brackets after it do", () => {
  const limit = maxDocumentDepth();
  const long = `"${"[".repeat(5 * limit)}\\\\"`;
  assert.equal(refused(`{"value":${long}}`), false);
  assert.equal(refused(`{"value":${long},"x":${"[".repeat(limit + 1)}}`), true);
  // An escaped quote does not end the string: the brackets after it are still inside.
  assert.equal(refused(`["a\\"${"[".repeat(limit + 1)}"]`), false);
});
