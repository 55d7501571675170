import assert from "node:assert/strict";
import { test } from "node:test";
import { AasError } from "./aas-error.ts";
import { decodeBase64Url, encodeBase64Url } from "./base64url.ts";

const isBase64UrlError = (error: unknown) => error instanceof AasError && error.kind === "base64url";

test("encodes UTF-8 identifiers unpadded with the URL alphabet, and decodes them back", () => {
  for (const id of ["https://example.org/submodels/technical-data-1", "a", "ab", "abc", "urn:ü:測試:🙂", "?>?>"]) {
    const encoded = encodeBase64Url(id);
    assert.match(encoded, /^[A-Za-z0-9_-]+$/);
    assert.equal(decodeBase64Url(encoded), id);
  }
  assert.equal(encodeBase64Url("?>?>"), "Pz4_Pg");
});

test("accepts padded input and %3D-escaped padding", () => {
  assert.equal(decodeBase64Url("YQ=="), "a");
  assert.equal(decodeBase64Url("YQ%3D%3D"), "a");
  assert.equal(decodeBase64Url("YQ%3d%3d"), "a");
  assert.equal(decodeBase64Url("YWI="), "ab");
  assert.equal(decodeBase64Url("YWI"), "ab");
});

test("rejects what Node's decoder would silently skip or misread", () => {
  for (const bad of [
    "invalid-base64url=====", // too much padding (the AAS test engine's probe)
    "YQ===",
    "YQ=", // padding that does not fit the length
    "YWI==",
    "Y", // length % 4 == 1: no whole byte
    "YWJjZ",
    "YW I",
    "YW+i", // standard-base64 characters
    "YW/i",
    "YW=I", // padding in the middle
    "YR", // non-canonical last character (same bytes as "YQ")
    "",
  ]) {
    assert.throws(() => decodeBase64Url(bad), isBase64UrlError, JSON.stringify(bad));
  }
});

test("rejects bytes that are not UTF-8", () => {
  const latin1 = Buffer.from([0x66, 0xe9, 0x65]).toString("base64url"); // "fée" in Latin-1
  assert.throws(() => decodeBase64Url(latin1), isBase64UrlError);
  assert.throws(() => decodeBase64Url(Buffer.from([0xff]).toString("base64url")), isBase64UrlError);
});

test("a leading U+FEFF is part of the identifier (it would otherwise name another one)", () => {
  for (const id of ["\uFEFFurn:x", "\uFEFF\uFEFFurn:x", "urn:\uFEFFx", "\uFEFF"]) {
    assert.equal(decodeBase64Url(encodeBase64Url(id)), id, JSON.stringify(id));
  }
  assert.notEqual(encodeBase64Url("\uFEFFurn:x"), encodeBase64Url("urn:x"));
});
