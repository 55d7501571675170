import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import * as aas from "./aas-core.cts";
import { NODE_BASE64_FROM_CHARS, useNodeBase64 } from "./node-base64.cts";

// The library's own codec, as it was before the door installed Node's (installing again hands it back).
const library = useNodeBase64(aas.common);

test("the aas-core door answers aas-core's base64 with Node's codec", () => {
  assert.notEqual(aas.common.base64Decode, library.decode);
  assert.notEqual(aas.common.base64Encode, library.encode);
});

test("Node's codec gives the library's answers around the threshold, padded or not", () => {
  for (const chars of [NODE_BASE64_FROM_CHARS - 4, NODE_BASE64_FROM_CHARS, NODE_BASE64_FROM_CHARS + 4, 100_000]) {
    for (const drop of [0, 1, 2]) {
      const bytes = new Uint8Array(randomBytes((chars / 4) * 3 - drop));
      const text = aas.common.base64Encode(bytes);
      assert.equal(text, library.encode(bytes));
      const ours = aas.common.base64Decode(text);
      const theirs = library.decode(text);
      assert.equal(ours.error, null);
      assert.deepEqual(ours.value, theirs.value);
      assert.equal(Object.getPrototypeOf(ours.value), Uint8Array.prototype, "a plain Uint8Array, as the library gives");
    }
  }
});

test("what is not canonical base64 still gets the library's answer", () => {
  const valid = library.encode(new Uint8Array(randomBytes(9000)));
  const cases = [
    `${valid.slice(0, -4)}AB==`, // non-zero bits after the last byte: the library accepts them
    `${valid}A`, // a length not divisible by 4: the library decodes what it can
    `${valid.slice(0, 5000)}*${valid.slice(5001)}`, // a character outside the alphabet
    `${valid.slice(0, 5000)}=${valid.slice(5001)}`, // padding inside
    `${valid.slice(0, 5000)}-_${valid.slice(5002)}`, // base64url's alphabet
    `${valid.slice(0, -4)}====`,
  ];
  // The library throws for some (a length not divisible by 4): the same throw is its answer too.
  const answer = (decode: typeof library.decode, text: string) => {
    try {
      const { value, error } = decode(text);
      return { value, error };
    } catch (thrown) {
      return { thrown: String(thrown) };
    }
  };
  for (const text of cases) assert.deepEqual(answer(aas.common.base64Decode, text), answer(library.decode, text));
});

test("a Blob of 3 MB goes through jsonization and back byte for byte", () => {
  const bytes = randomBytes(3 * 1024 * 1024);
  const text = bytes.toString("base64");
  const parsed = aas.jsonization.submodelElementFromJsonable({
    modelType: "Blob",
    idShort: "Firmware",
    contentType: "application/octet-stream",
    value: text,
  });
  assert.equal(parsed.error, null);
  const blob = parsed.mustValue() as aas.types.Blob;
  assert.ok(Buffer.from(blob.value!).equals(bytes));
  assert.equal((aas.jsonization.toJsonable(blob) as { value: string }).value, text);
});
